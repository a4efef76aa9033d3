import type { z } from 'zod';
import {
  listEnvelope,
  timeListEnvelope,
  timePaginationSchema,
  cursorPaginationSchema,
  oauthErrorSchema,
  paginationSchema,
  singleEnvelope,
  validationErrorEnvelope,
} from '@community/contracts';
import { PAGINATION_EXAMPLE, REQUEST_EXAMPLES, RESOURCE_EXAMPLES } from './examples';
import { INFO } from './info';
import { OAUTH_ERROR_RESPONSES, oauthErrorResponseComponent } from './oauth-responses';
import { errorStatuses, idempotent, TAGS, type Method, type OperationSpec } from './operation';
import { OPERATIONS } from './operations';
import {
  commonHeaders,
  ERROR_RESPONSES,
  errorResponseComponent,
  errorSchemaName,
  HEADER_COMPONENTS,
  notModifiedResponse,
  PARAMETERS,
  ref,
} from './responses';
import {
  errorSchemaFor,
  EVENT_PAYLOADS,
  openApiDocumentSchema,
  REQUESTS,
  requestName,
  RESOURCES,
  toComponentSchemas,
  type JsonSchema,
  type ResourceName,
} from './schemas';
import { operationSecurity, SECURITY_SCHEMES } from './security';
import { WEBHOOK_PARAMETERS, webhooksSection } from './webhooks';
import { conditionalGet, parameters, timeOrdered } from './parameters';

type Json = Record<string, unknown>;
/** A path's operations by method, and the servers of a path outside `/api/v1`. */
export type PathItem = Partial<Record<Method, Json>> & { servers?: Json[] };
export type OpenApiDocument = Json & { openapi: '3.1.0'; paths: Record<string, PathItem> };

const CURSOR_EXAMPLE = 'eyJ2IjoxLCJsIjoicG9zdHMiLCJzIjoiW10iLCJpIjo0Mn0';

const TIME_ORDERED_LINK = {
  description:
    'By page: RFC 8288 links `first`, `last` and, where they exist, `prev` and `next`. By cursor: `next`, carrying `next_cursor`, and none on the last page.',
  schema: { type: 'string', pattern: 'rel="(first|next)"' },
  required: false,
};

function envelopeName({ response: { kind, schema } }: OperationSpec): string {
  if (kind === 'document') return 'OpenApiDocument';
  // A protocol answer is the schema itself, without the envelope.
  if (kind === 'plain') return schema!;
  return `${schema}${kind === 'page' ? 'Page' : 'Response'}`;
}

/** The envelopes the operations answer with, each wrapping a named resource. */
function envelopes(): Record<string, z.ZodType> {
  const named: Record<string, z.ZodType> = {};
  for (const op of OPERATIONS) {
    const name = envelopeName(op);
    const schema = op.response.schema as ResourceName | null;
    if (named[name] || !schema || op.response.kind === 'plain' || op.response.kind === 'stream') continue;
    const item = RESOURCES[schema];
    named[name] =
      op.response.kind !== 'page'
        ? singleEnvelope(item)
        : timeOrdered(op)
          ? timeListEnvelope(item)
          : listEnvelope(item);
  }
  return named;
}

const REPLAYED: Json = {
  description:
    'The first answer to this `Idempotency-Key`, replayed: nothing was created or changed this time.',
  required: false,
  schema: { type: 'string', const: 'true' },
};

function successResponse(op: OperationSpec): Json {
  const { status, kind, schema, description, noStore } = op.response;
  const headers: Json = commonHeaders(!op.unlimited);
  if (conditionalGet(op)) headers.ETag = ref('headers', 'ETag');
  if (kind === 'page') headers.Link = timeOrdered(op) ? TIME_ORDERED_LINK : ref('headers', 'Link');
  if (status === 201) headers.Location = ref('headers', 'Location');
  if (idempotent(op)) headers['Idempotent-Replayed'] = REPLAYED;
  if (noStore) headers['Cache-Control'] = ref('headers', 'Cache-Control');
  Object.assign(headers, op.response.headers);
  if (kind === 'svg')
    return { description, headers, content: { 'image/svg+xml': { schema: { type: 'string' } } } };
  if (kind === 'stream') return streamResponse(op, headers);
  const item = schema ? RESOURCE_EXAMPLES[schema] : undefined;
  const example =
    kind === 'page'
      ? {
          success: true,
          data: [item],
          pagination: timeOrdered(op)
            ? { ...PAGINATION_EXAMPLE, next_cursor: CURSOR_EXAMPLE }
            : PAGINATION_EXAMPLE,
        }
      : kind === 'single'
        ? { success: true, data: item }
        : item;
  const media: Json = { schema: ref('schemas', envelopeName(op)) };
  if (example) media.example = example;
  return { description, headers, content: { 'application/json': media } };
}

/**
 * Server-Sent Events: the body is text; each event's `data` is the schema, shown as `x-event-data`
 * (OpenAPI 3.1 has no schema for the events of a stream) and in the example.
 */
function streamResponse(op: OperationSpec, headers: Json): Json {
  const schema = op.response.schema!;
  const item = RESOURCE_EXAMPLES[schema];
  const example = `: open\n\nid: ${(item as { id: number }).id}\nevent: notification\ndata: ${JSON.stringify(item)}\n\n: keep-alive\n\n`;
  return {
    description: op.response.description,
    headers,
    content: {
      'text/event-stream': {
        schema: { type: 'string', 'x-event-data': ref('schemas', schema) },
        example,
      },
    },
  };
}

function operation(op: OperationSpec): Json {
  const access = op.scope
    ? `Scope: \`${op.scope}\`.`
    : op.protocol === 'oauth'
      ? 'No key: the app authenticates itself.'
      : 'No key needed.';
  const result: Json = {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, access].filter(Boolean).join('\n\n'),
    security: operationSecurity(op),
    ...(op.scope ? { 'x-required-scope': op.scope } : {}),
  };
  const params = parameters(op);
  if (params.length) result.parameters = params;
  if (op.body) {
    const media = op.form ? 'application/x-www-form-urlencoded' : 'application/json';
    const body = requestName(op.body);
    result.requestBody = {
      required: true,
      content: { [media]: { schema: ref('schemas', body), example: REQUEST_EXAMPLES[body] } },
    };
  }
  const responses: Json = { [op.response.status]: successResponse(op) };
  if (conditionalGet(op))
    responses['304'] = op.unlimited ? notModifiedResponse(false) : ref('responses', 'NotModified');
  for (const status of errorStatuses(op)) {
    const oauth = op.protocol === 'oauth' ? OAUTH_ERROR_RESPONSES[status] : undefined;
    // An unlimited operation's errors carry no limit headers: its own copy of the shared answer.
    responses[status] = op.unlimited
      ? errorResponseComponent(status, false)
      : ref('responses', (oauth ?? ERROR_RESPONSES[status]!).name);
  }
  result.responses = responses;
  return result;
}

function paths(): OpenApiDocument['paths'] {
  const result: OpenApiDocument['paths'] = {};
  for (const op of OPERATIONS) {
    const item = (result[op.path] ??= op.server ? { servers: [op.server] } : {});
    item[op.method] = operation(op);
  }
  return result;
}

function schemas(): Record<string, JsonSchema> {
  const statuses = Object.keys(ERROR_RESPONSES).map(Number);
  const outputs = toComponentSchemas(
    {
      ...RESOURCES,
      Pagination: paginationSchema,
      TimePagination: timePaginationSchema,
      CursorPagination: cursorPaginationSchema,
      ...envelopes(),
      OpenApiDocument: openApiDocumentSchema,
      ValidationError: validationErrorEnvelope,
      OAuthError: oauthErrorSchema,
      ...Object.fromEntries(statuses.map((status) => [errorSchemaName(status), errorSchemaFor(status)])),
      ...EVENT_PAYLOADS,
    },
    'output',
  );
  const inputs = toComponentSchemas(REQUESTS, 'input');
  for (const name of Object.keys(inputs))
    if (outputs[name]) throw new Error(`schema name ${name} is used twice`);
  return { ...outputs, ...inputs };
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the contract schemas and the
 * operation registry. Deterministic: the same code gives the same document, key order included.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: INFO,
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/api/v1', description: 'This gateway' }],
    tags: [
      ...Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      { name: 'Events', description: 'What your webhook endpoints receive.' },
    ],
    paths: paths(),
    webhooks: webhooksSection(),
    components: {
      schemas: schemas(),
      responses: Object.fromEntries([
        ['NotModified', notModifiedResponse()],
        ...Object.entries(ERROR_RESPONSES).map(([status, { name }]) => [
          name,
          errorResponseComponent(+status),
        ]),
        ...Object.entries(OAUTH_ERROR_RESPONSES).map(([status, { name }]) => [
          name,
          oauthErrorResponseComponent(+status),
        ]),
      ]),
      parameters: {
        ...PARAMETERS,
        CsrfToken: {
          name: 'x-csrf-token',
          in: 'header',
          description: 'With the account session cookie instead of a key: the CSRF token of that session.',
          schema: { type: 'string' },
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          description:
            'An `ETag` this answer had (or `*`): `304 Not Modified` while it is still current, counted in neither window.',
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          description:
            'Any 1–255 visible ASCII characters, new for each new request (a UUID, say). For 24 hours a retry with the same key, method, path and body gets the first answer again, with `Idempotent-Replayed: true`, and creates nothing; the same key with another request is `422 idempotency_key_reused`, and one while the first still runs `409 idempotency_in_progress`. Keys are per account (per client address without one). Answers the gateway gives itself (401, 403, 429, 503) are not kept.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
        ...WEBHOOK_PARAMETERS,
      },
      headers: HEADER_COMPONENTS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
