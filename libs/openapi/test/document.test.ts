import type { z } from 'zod';
import { oauthErrorSchema, PUBLIC_EVENTS, SCOPES, webhookPayload } from '@community/contracts';
import {
  buildOpenApiDocument,
  ERROR_EXAMPLES,
  errorStatuses,
  EVENT_EXAMPLES,
  OAUTH_ERROR_EXAMPLES,
  OPERATIONS,
  REQUEST_EXAMPLES,
  REQUESTS,
  RESOURCE_EXAMPLES,
  RESOURCES,
} from '@community/openapi';

const document = buildOpenApiDocument();
const METHODS = new Set(['get', 'put', 'post', 'delete']);
const operations = Object.values(document.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([key]) => METHODS.has(key))
    .map(([, operation]) => operation),
) as Record<string, any>[];

describe('the generated document', () => {
  it('is deterministic, key order included', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(document));
  });

  it('is OpenAPI 3.1 with one operation per registry entry and the five public events and the ping as webhooks', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(operations.map((op) => op.operationId)).toEqual(OPERATIONS.map((op) => op.id));
    expect(Object.keys(document.webhooks as object)).toEqual([...PUBLIC_EVENTS, 'ping']);
  });

  it('gives every operation its scope, errors and the limit headers', () => {
    for (const op of OPERATIONS.filter((o) => !o.unlimited)) {
      const operation = document.paths[op.path]![op.method]!;
      const responses = operation.responses as Record<string, any>;
      // A GET's 200 may be answered 304, unless it is written as it is read (no ETag first).
      const conditional =
        op.method === 'get' &&
        op.response.status === 200 &&
        op.response.kind !== 'stream' &&
        !('streamed' in op.response);
      expect(Object.keys(responses).map(Number)).toEqual([
        op.response.status,
        ...(conditional ? [304] : []),
        ...errorStatuses(op),
      ]);
      if (conditional) {
        expect(responses['304']).toEqual({ $ref: '#/components/responses/NotModified' });
        expect(responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
        expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
      }
      expect(responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      expect(Object.keys(responses[op.response.status].headers)).toEqual(
        expect.arrayContaining([
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'RateLimit-Policy',
          'RateLimit',
        ]),
      );
      const security = op.scope
        ? expect.arrayContaining([{ bearerAuth: [op.scope] }, { oauth2: [op.scope] }])
        : op.protocol === 'oauth'
          ? [{ clientSecretBasic: [] }, {}]
          : [];
      expect(operation.security).toEqual(security);
    }
  });

  it('documents the default avatar as a keyless SVG at the origin root, outside the API limits', () => {
    const item = document.paths['/avatars/{id}.svg']!;
    expect(item.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const operation = item.get as any;
    expect(operation.security).toEqual([]);
    // 429: the avatars' own budget per address (DESIGN.md §21).
    expect(Object.keys(operation.responses)).toEqual(['200', '304', '404', '429', '500', '503']);
    expect(operation.responses['304'].headers['X-RateLimit-Limit'].required).toBe(false);
    const ok = operation.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['image/svg+xml']);
    expect(ok.headers['Cache-Control'].schema.const).toBe('public, max-age=86400');
    expect(ok.headers['X-RateLimit-Limit'].required).toBe(false);
    expect(operation.responses['404'].headers['X-RateLimit-Limit'].required).toBe(false);
    // Every avatar in an answer is an absolute http(s) URL, documented as such.
    for (const name of ['User', 'Me', 'Comment', 'PostDetail']) {
      const schemas = (document.components as any).schemas;
      const avatar = JSON.stringify(schemas[name]).match(/"avatar":(\{[^}]*\})/)?.[1];
      expect(JSON.parse(avatar!)).toMatchObject({
        format: 'uri',
        pattern: expect.stringContaining('https?'),
      });
    }
  });

  it('answers the OAuth token and revocation errors in RFC 6749 form, the gateway’s 429 in the envelope', () => {
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const operation = document.paths[path]!.post as any;
      expect(Object.keys(operation.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
      expect(operation.responses['400']).toEqual({ $ref: '#/components/responses/OAuthBadRequest' });
      expect(operation.responses['401']).toEqual({ $ref: '#/components/responses/OAuthUnauthorized' });
      expect(operation.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    }
    const token = (document.paths['/oauth/token']!.post as any).responses['200'];
    expect(token.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TokenResponse' });
    expect(Object.keys(token.headers)).toEqual(expect.arrayContaining(['Cache-Control', 'Pragma']));
  });

  it('puts the RFC 8414 metadata at the root of the origin with a path-level server', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
    const item = document.paths['/.well-known/oauth-authorization-server']!;
    expect(item.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(item.get!.operationId).toBe('getAuthorizationServerMetadata');
    const others = Object.entries(document.paths).filter(
      ([path]) => !path.startsWith('/.well-known/') && !path.startsWith('/avatars/'),
    );
    for (const [, other] of others) expect(other.servers).toBeUndefined();
  });

  it('offers OAuth 2.0 beside the bearer scheme, with every scope described', () => {
    const { oauth2 } = (document.components as any).securitySchemes;
    const { authorizationCode, clientCredentials } = oauth2.flows;
    expect(authorizationCode).toMatchObject({
      authorizationUrl: '/api/v1/oauth/authorize',
      tokenUrl: '/api/v1/oauth/token',
      refreshUrl: '/api/v1/oauth/token',
    });
    expect(clientCredentials.tokenUrl).toBe('/api/v1/oauth/token');
    for (const flow of [authorizationCode, clientCredentials]) {
      expect(Object.keys(flow.scopes)).toEqual([...SCOPES]);
      for (const text of Object.values(flow.scopes)) expect(text).toMatch(/^[A-Z].{10,}\.$/);
    }
  });

  it('documents the Link header on every list and paging parameters where they apply', () => {
    const lists = OPERATIONS.filter((candidate) => candidate.response.kind === 'page');
    // The key list is always one page: GET /keys takes no paging parameters.
    expect(lists.filter((op) => !op.query).map((op) => op.id)).toEqual(['listApiKeys', 'listOAuthApps']);
    for (const op of lists) {
      const operation = document.paths[op.path]![op.method] as any;
      const link = operation.responses['200'].headers.Link;
      // A time-ordered list's Link is `next` alone when walked by cursor: not always `first`.
      if (op.query?.shape.cursor) expect(link).toMatchObject({ required: false, schema: { type: 'string' } });
      else expect(link).toEqual({ $ref: '#/components/headers/Link' });
      if (!op.query) continue;
      expect(operation.parameters).toEqual(
        expect.arrayContaining([
          { $ref: '#/components/parameters/Page' },
          { $ref: '#/components/parameters/Limit' },
        ]),
      );
    }
  });

  it('documents Idempotency-Key, 409 and 422 on every POST under /api/v1 but the OAuth protocol', () => {
    const posts = OPERATIONS.filter((op) => op.method === 'post');
    const keyed = posts.filter((op) => !op.protocol && !op.server);
    expect(keyed.map((op) => op.id)).toEqual(
      expect.arrayContaining(['createPost', 'register', 'createWebhook', 'createOAuthApp']),
    );
    for (const op of posts) {
      const operation = document.paths[op.path]!.post as any;
      const takesKey = keyed.includes(op);
      expect([
        op.id,
        operation.parameters?.some((p: any) => p.$ref?.endsWith('/IdempotencyKey')) ?? false,
      ]).toEqual([op.id, takesKey]);
      if (!takesKey) continue;
      expect(operation.responses).toMatchObject({
        '409': { $ref: '#/components/responses/Conflict' },
        '422': { $ref: '#/components/responses/IdempotencyKeyReused' },
      });
      expect(operation.responses[op.response.status].headers['Idempotent-Replayed']).toMatchObject({
        required: false,
      });
    }
    const schemas = (document.components as any).schemas;
    expect(JSON.stringify(schemas)).toContain('idempotency_in_progress');
    expect(JSON.stringify(schemas)).toContain('idempotency_key_reused');
  });

  it('requires retry_after in the 429 body', () => {
    const schemas = (document.components as any).schemas;
    expect(schemas.TooManyRequestsError.required).toEqual(
      expect.arrayContaining(['error', 'message', 'retry_after']),
    );
    expect(schemas.NotFoundError.properties.retry_after).toBeUndefined();
    expect(schemas.NotFoundError.properties.error.enum).toEqual(['not_found']);
  });
});

describe('the examples', () => {
  it.each(Object.keys(RESOURCES) as (keyof typeof RESOURCES)[])(
    '%s parses with its contract schema',
    (name) => {
      expect((RESOURCES[name] as z.ZodType).safeParse(RESOURCE_EXAMPLES[name]).error).toBeUndefined();
    },
  );

  it.each(Object.keys(REQUESTS) as (keyof typeof REQUESTS)[])('%s is a body the service accepts', (name) => {
    expect((REQUESTS[name] as z.ZodType).safeParse(REQUEST_EXAMPLES[name]).error).toBeUndefined();
  });

  it.each(Object.keys(OAUTH_ERROR_EXAMPLES))('OAuth error %s parses as an RFC 6749 error', (code) => {
    const example = OAUTH_ERROR_EXAMPLES[code as keyof typeof OAUTH_ERROR_EXAMPLES];
    expect(oauthErrorSchema.safeParse(example).error).toBeUndefined();
    expect(example.error).toBe(code);
  });

  it.each(PUBLIC_EVENTS)('%s parses as a webhook body', (event) => {
    expect(webhookPayload(event).safeParse(EVENT_EXAMPLES[event]).error).toBeUndefined();
  });

  it('show keys and secrets in their real formats', () => {
    expect(RESOURCE_EXAMPLES.CreatedApiKey.key).toMatch(/^cpk_[0-9A-Za-z]{40}$/);
    expect(RESOURCE_EXAMPLES.CreatedApiKey.key.startsWith(RESOURCE_EXAMPLES.CreatedApiKey.prefix)).toBe(true);
    expect(Buffer.from(RESOURCE_EXAMPLES.CreatedWebhook.secret.slice(6), 'base64')).toHaveLength(32);
    expect(Object.keys(ERROR_EXAMPLES)).toHaveLength(23);
    const app = RESOURCE_EXAMPLES.OAuthAppWithSecret;
    expect(app.client_id).toMatch(/^cpi_[0-9A-Za-z]{24}$/);
    expect(app.client_secret).toMatch(/^cps_[0-9A-Za-z]{40}$/);
    expect(RESOURCE_EXAMPLES.TokenResponse.access_token).toMatch(/^cpo_[0-9A-Za-z]{40}$/);
    expect(RESOURCE_EXAMPLES.TokenResponse.refresh_token).toMatch(/^cpr_[0-9A-Za-z]{40}$/);
    const request = REQUEST_EXAMPLES.TokenRequest;
    expect(request.grant_type === 'authorization_code' && request.code).toMatch(/^cpa_[0-9A-Za-z]{40}$/);
    expect(new URLSearchParams(RESOURCE_EXAMPLES.Redirect.location.split('?')[1]).get('client_id')).toBe(
      app.client_id,
    );
  });
});
