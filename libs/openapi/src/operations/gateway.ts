import { servedBy, type OperationDeclaration } from '../operation';

/** What the gateway answers itself (gateway/src/pipeline.ts). */
export const GATEWAY_OPERATIONS = servedBy(null, [
  {
    id: 'getApiInfo',
    method: 'get',
    path: '/',
    tag: 'Meta',
    summary: 'Name and version of the API',
    scope: 'read',
    response: { status: 200, kind: 'single', schema: 'ApiInfo', description: 'The API.' },
  },
  {
    id: 'getOpenApiDocument',
    method: 'get',
    path: '/openapi.json',
    tag: 'Meta',
    summary: 'This OpenAPI document',
    description: 'No key needed; counts against the per-address budget of requests without a key.',
    scope: null,
    response: { status: 200, kind: 'document', schema: null, description: 'The OpenAPI 3.1 document.' },
  },
] as const satisfies readonly OperationDeclaration[]);
