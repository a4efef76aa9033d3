import { z } from 'zod';
import * as c from '@community/contracts';

/**
 * The contract schemas the document names in `components.schemas`. Nothing here is a second copy:
 * every entry is a contract schema, or a contract schema wrapped in the envelope the services send.
 */
export const RESOURCES = {
  Post: c.postListEntry,
  PostDetail: c.postDetail,
  LikeResult: c.likeResult,
  Comment: c.commentSchema,
  CommentEntry: c.commentListEntry,
  CommentLikeResult: c.commentLikeResult,
  Category: c.categorySchema,
  Tag: c.tagSchema,
  User: c.userSchema,
  Me: c.meSchema,
  ApiKey: c.apiKeySchema,
  CreatedApiKey: c.createdKeySchema,
  Webhook: c.webhookSchema,
  CreatedWebhook: c.createdWebhookSchema,
  RotatedSecret: c.rotatedSecretSchema,
  Delivery: c.deliverySchema,
  Deleted: c.deletedSchema,
  ApiInfo: c.apiInfoSchema,
  OAuthApp: c.oauthAppSchema,
  OAuthAppWithSecret: c.oauthAppWithSecretSchema,
  Redirect: c.redirectSchema,
  TokenResponse: c.tokenResponse,
  RevocationResult: c.revocationResultSchema,
  AuthorizationServerMetadata: c.authorizationServerMetadataSchema,
  Flag: c.flagSchema,
  ModerationAction: c.moderationActionSchema,
  Suspension: c.suspensionSchema,
  LiftedSuspension: c.liftedSuspensionSchema,
  EventLogEntry: c.eventLogEntrySchema,
  PingResult: c.pingResultSchema,
  ReplayResult: c.replayResultSchema,
  Notification: c.notificationSchema,
  UnreadCount: c.unreadCountSchema,
  Marked: c.markedSchema,
  Erasure: c.erasureSchema,
  AccountExport: c.accountExportSchema,
} as const;
export type ResourceName = keyof typeof RESOURCES;

/** Request bodies, documented as the client writes them (zod's input side: before trimming etc.). */
export const REQUESTS = {
  CreatePostRequest: c.createPostBody,
  UpdatePostRequest: c.updatePostBody,
  CreateCommentRequest: c.createCommentBody,
  UpdateCommentRequest: c.updateCommentBody,
  CreateCategoryRequest: c.createCategoryBody,
  UpdateCategoryRequest: c.updateCategoryBody,
  RegisterRequest: c.registerBody,
  UpdateMeRequest: c.updateMeBody,
  EraseMeRequest: c.eraseMeBody,
  SetPlanRequest: c.setPlanBody,
  SetRoleRequest: c.setRoleBody,
  CreateApiKeyRequest: c.createKeyBody,
  CreateWebhookRequest: c.createWebhookBody,
  UpdateWebhookRequest: c.updateWebhookBody,
  CreateOAuthAppRequest: c.createOAuthAppBody,
  TokenRequest: c.tokenRequest,
  RevocationRequest: c.revocationRequest,
  CreateFlagRequest: c.createFlagBody,
  DecideFlagRequest: c.decideFlagBody,
  SuspensionRequest: c.suspensionBody,
  ReplayRequest: c.replayBody,
  MarkReadRequest: c.markReadBody,
} as const;
export type RequestName = keyof typeof REQUESTS;

const REQUEST_NAMES = new Map<z.ZodType, RequestName>(
  Object.entries(REQUESTS).map(([name, schema]) => [schema, name as RequestName]),
);

/** The document's name for an operation's body schema: every body is one of REQUESTS. */
export function requestName(schema: z.ZodType): RequestName {
  const name = REQUEST_NAMES.get(schema);
  if (!name) throw new Error('an operation body must be a schema REQUESTS names');
  return name;
}

/** What `GET /openapi.json` answers: this document (only its frame is pinned down). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** The error envelope narrowed to the codes one HTTP status can carry (DESIGN.md §3). */
export function errorSchemaFor(status: number): z.ZodType {
  const codes = (Object.keys(c.ERROR_STATUS) as c.ErrorCode[]).filter(
    (code) => c.ERROR_STATUS[code] === status && code !== 'validation_error',
  );
  if (status === 429) return c.rateLimitErrorEnvelope;
  const [first, ...rest] = codes;
  if (!first) throw new Error(`no error code has status ${status}`);
  // Only a 429 carries retry_after.
  const envelope = c.errorEnvelope.omit({ retry_after: true }).extend({ error: z.enum([first, ...rest]) });
  return status === 400 ? z.union([c.validationErrorEnvelope, envelope]) : envelope;
}

/** The public events as webhook bodies, named e.g. `PostCreatedEvent`. */
export const EVENT_PAYLOADS = Object.fromEntries(
  c.PUBLIC_EVENTS.map((event) => [eventSchemaName(event), c.webhookPayload(event)]),
) as Record<string, z.ZodType>;

export function eventSchemaName(event: c.PublicEvent): string {
  return `${event.replace(/(^|[._])(\w)/g, (_, _sep: string, letter: string) => letter.toUpperCase())}Event`;
}

export type JsonSchema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** zod's JSON Schema, tidied for a document: no per-schema `$schema`/`$id`, no safe-integer noise. */
function tidy(ctx: { jsonSchema: JsonSchema }) {
  const schema = ctx.jsonSchema;
  if (schema.minimum === -SAFE) delete schema.minimum;
  if (schema.maximum === SAFE) delete schema.maximum;
}

function strip(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]),
  );
}

const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * Converts named zod schemas to JSON Schema 2020-12 (OpenAPI 3.1's dialect) in one pass, so a
 * named schema nested in another becomes a `$ref` instead of a copy.
 */
export function toComponentSchemas(
  named: Record<string, z.ZodType>,
  io: 'input' | 'output',
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, uri: ref, override: tidy });
  return strip(schemas as Record<string, JsonSchema>);
}

/** One schema on its own (a query or path parameter), inlined. */
export function toInlineSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _s, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    override: tidy,
  }) as JsonSchema;
  return json;
}
