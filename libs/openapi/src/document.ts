import type { z } from 'zod';
import {
  idField,
  listEnvelope,
  oauthErrorSchema,
  paginationQuery,
  paginationSchema,
  singleEnvelope,
  validationErrorEnvelope,
} from '@community/contracts';
import { PAGINATION_EXAMPLE, REQUEST_EXAMPLES, RESOURCE_EXAMPLES } from './examples';
import { INFO } from './info';
import { OAUTH_ERROR_RESPONSES, oauthErrorResponseComponent } from './oauth-responses';
import { errorStatuses, TAGS, type Method, type OperationSpec } from './operation';
import { OPERATIONS } from './operations';
import {
  commonHeaders,
  ERROR_RESPONSES,
  errorResponseComponent,
  errorSchemaName,
  HEADER_COMPONENTS,
  PARAMETERS,
  ref,
} from './responses';
import {
  errorSchemaFor,
  EVENT_PAYLOADS,
  openApiDocumentSchema,
  REQUESTS,
  RESOURCES,
  toComponentSchemas,
  toInlineSchema,
  type JsonSchema,
  type ResourceName,
} from './schemas';
import { operationSecurity, SECURITY_SCHEMES } from './security';
import { WEBHOOK_PARAMETERS, webhooksSection } from './webhooks';

type Json = Record<string, unknown>;
/** A path's operations by method, and the servers of a path outside `/api/v1`. */
export type PathItem = Partial<Record<Method, Json>> & { servers?: Json[] };
export type OpenApiDocument = Json & { openapi: '3.1.0'; paths: Record<string, PathItem> };

const QUERY_DESCRIPTIONS: Record<string, string> = {
  category: 'Only posts in this category (id).',
  author: 'Only posts by this user (id).',
  tag: 'Only posts with this tag (case-insensitive).',
  sort: 'Order of the list.',
  status: 'Only deliveries in this state.',
};

const SINGULAR: Record<string, string> = {
  posts: 'post',
  comments: 'comment',
  categories: 'category',
  users: 'user',
  avatars: 'user',
  keys: 'API key',
  webhooks: 'webhook endpoint',
  deliveries: 'delivery',
  apps: 'OAuth app',
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
    if (named[name] || !schema || op.response.kind === 'plain') continue;
    const item = RESOURCES[schema];
    named[name] = op.response.kind === 'page' ? listEnvelope(item) : singleEnvelope(item);
  }
  return named;
}

function parameters(op: OperationSpec): Json[] {
  const path = [...op.path.matchAll(/([a-z]+)\/\{(\w+)\}/g)].map(([, collection, name]) => ({
    name,
    in: 'path',
    required: true,
    description: `The ${SINGULAR[collection!] ?? collection} id.`,
    schema: toInlineSchema(idField),
  }));
  const query = Object.entries(op.query?.shape ?? {}).map(([name, field]) => {
    if (field === paginationQuery.page) return ref('parameters', 'Page');
    if (field === paginationQuery.limit) return ref('parameters', 'Limit');
    const { description: own, ...schema } = toInlineSchema(field);
    const description = QUERY_DESCRIPTIONS[name] ?? own;
    const required = !field.safeParse(undefined).success;
    return {
      name,
      in: 'query',
      ...(description ? { description } : {}),
      ...(required ? { required } : {}),
      schema,
    };
  });
  const csrf = op.session ? [ref('parameters', 'CsrfToken')] : [];
  return [...path, ...query, ...csrf];
}

function successResponse(op: OperationSpec): Json {
  const { status, kind, schema, description, noStore } = op.response;
  const headers: Json = commonHeaders(!op.unlimited);
  if (kind === 'page') headers.Link = ref('headers', 'Link');
  if (status === 201) headers.Location = ref('headers', 'Location');
  if (noStore) headers['Cache-Control'] = ref('headers', 'Cache-Control');
  Object.assign(headers, op.response.headers);
  if (kind === 'svg')
    return { description, headers, content: { 'image/svg+xml': { schema: { type: 'string' } } } };
  const item = schema ? RESOURCE_EXAMPLES[schema] : undefined;
  const example =
    kind === 'page'
      ? { success: true, data: [item], pagination: PAGINATION_EXAMPLE }
      : kind === 'single'
        ? { success: true, data: item }
        : item;
  const media: Json = { schema: ref('schemas', envelopeName(op)) };
  if (example) media.example = example;
  return { description, headers, content: { 'application/json': media } };
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
    result.requestBody = {
      required: true,
      content: { [media]: { schema: ref('schemas', op.body), example: REQUEST_EXAMPLES[op.body] } },
    };
  }
  const responses: Json = { [op.response.status]: successResponse(op) };
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
        ...WEBHOOK_PARAMETERS,
      },
      headers: HEADER_COMPONENTS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
