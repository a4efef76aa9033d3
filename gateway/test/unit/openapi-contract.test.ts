import { ERROR_EXAMPLES, EVENT_EXAMPLES, OAUTH_ERROR_EXAMPLES, RESOURCE_EXAMPLES } from '@community/openapi';
import { ContractViolation, ResponseValidator } from '../support/openapi-contract';

const validator = new ResponseValidator();

const limitHeaders = {
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '99',
  'x-ratelimit-reset': '1770460000',
  'ratelimit-policy': '"hour";q=100;w=3600, "day";q=1000;w=86400',
  ratelimit: '"hour";r=99;t=3599, "day";r=999;t=86399',
};
const jsonHeaders = (extra: Record<string, string> = {}) =>
  new Headers({
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'r-1',
    etag: '"2f-q1b9"',
    ...limitHeaders,
    ...extra,
  });

const page = {
  success: true,
  data: [RESOURCE_EXAMPLES.Post],
  pagination: { current_page: 1, total_pages: 1, total_items: 1, per_page: 20, next_cursor: null },
};
const link = {
  link: '<http://localhost/api/v1/posts?page=1&limit=20>; rel="first", <http://localhost/api/v1/posts?page=1&limit=20>; rel="last"',
};
const listPosts = (overrides: Partial<Parameters<ResponseValidator['check']>[0]> = {}) =>
  validator.check({
    method: 'GET',
    path: '/api/v1/posts?limit=20',
    status: 200,
    headers: jsonHeaders(link),
    body: page,
    ...overrides,
  });

describe('ResponseValidator', () => {
  it('accepts an answer that matches the document', () => {
    expect(listPosts()).toEqual({ operationId: 'listPosts', status: 200 });
  });

  it('refuses a status the operation does not document', () => {
    expect(() => listPosts({ status: 409 })).toThrow(/answered 409, which the document does not list/);
    expect(() => listPosts({ status: 418 })).toThrow(ContractViolation);
  });

  it('refuses a body that departs from the schema', () => {
    const extra = { ...page, data: [{ ...RESOURCE_EXAMPLES.Post, email: 'x@example.org' }] };
    expect(() => listPosts({ body: extra })).toThrow(/must NOT have additional properties/);
    const wrongType = { ...page, data: [{ ...RESOURCE_EXAMPLES.Post, views: '3' }] };
    expect(() => listPosts({ body: wrongType })).toThrow(/body\/data\/0\/views must be integer/);
  });

  it('refuses a missing required header and a malformed one', () => {
    const headers = jsonHeaders(link);
    headers.delete('x-ratelimit-limit');
    expect(() => listPosts({ headers })).toThrow(/header X-RateLimit-Limit is missing/);
    expect(() => listPosts({ headers: jsonHeaders({ ...link, 'x-ratelimit-reset': 'soon' }) })).toThrow(
      /header X-RateLimit-Reset must be integer/,
    );
    // Every list but a cursor page of a time-ordered one (DESIGN.md §10) has its page links.
    const { next_cursor: _, ...pageNumbers } = page.pagination;
    const users = { ...page, data: [], pagination: pageNumbers };
    expect(() =>
      validator.check({
        method: 'GET',
        path: '/api/v1/users',
        status: 200,
        headers: jsonHeaders(),
        body: users,
      }),
    ).toThrow(/header Link is missing/);
    const cursorPage = { ...page, pagination: { per_page: 20, next_cursor: null } };
    expect(listPosts({ headers: jsonHeaders(), body: cursorPage })).toEqual({
      operationId: 'listPosts',
      status: 200,
    });
  });

  it('refuses a path or method that is not an operation', () => {
    expect(() => listPosts({ path: '/api/v1/nothing' })).toThrow(/is not an operation/);
    expect(() => listPosts({ method: 'PATCH' })).toThrow(/is not an operation/);
  });

  it('knows the 429 form and a 503 that came before the limiter', () => {
    const tooMany = { error: 'rate_limit_exceeded', message: 'slow down', retry_after: 12 };
    const retry = jsonHeaders({ 'retry-after': '12' });
    expect(listPosts({ status: 429, headers: retry, body: tooMany }).status).toBe(429);
    const { retry_after: _, ...withoutRetry } = tooMany;
    expect(() => listPosts({ status: 429, headers: retry, body: withoutRetry })).toThrow(/retry_after/);
    const bare = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', 'retry-after': '5' });
    const unavailable = { error: 'service_unavailable', message: 'down' };
    expect(listPosts({ status: 503, headers: bare, body: unavailable }).status).toBe(503);
    expect(() =>
      listPosts({ status: 401, headers: bare, body: { error: 'unauthorized', message: 'x' } }),
    ).toThrow(/X-RateLimit-Limit is missing/);
  });

  it('prefers the literal /users/me over /users/{id}', () => {
    const body = { success: true, data: RESOURCE_EXAMPLES.Me };
    expect(
      validator.check({ method: 'GET', path: '/api/v1/users/me', status: 200, headers: jsonHeaders(), body }),
    ).toEqual({
      operationId: 'getMe',
      status: 200,
    });
  });

  it('honours a path-level server: the OAuth metadata lives at the root of the origin', () => {
    const metadata = (path: string) =>
      validator.check({
        method: 'GET',
        path,
        status: 200,
        headers: jsonHeaders({ 'cache-control': 'no-store' }),
        body: RESOURCE_EXAMPLES.AuthorizationServerMetadata,
      });
    expect(metadata('/.well-known/oauth-authorization-server')).toEqual({
      operationId: 'getAuthorizationServerMetadata',
      status: 200,
    });
    expect(() => metadata('/api/v1/.well-known/oauth-authorization-server')).toThrow(/is not an operation/);
    // The other paths stay under /api/v1.
    expect(() => listPosts({ path: '/posts' })).toThrow(/is not an operation/);
    expect(() => listPosts({ path: '/api/v1posts' })).toThrow(/is not an operation/);
  });

  it('holds token endpoint errors to RFC 6749 §5.2, and takes the gateway’s own 503 envelope too', () => {
    const token = (status: number, body: unknown, extra: Record<string, string> = {}) =>
      validator.check({
        method: 'POST',
        path: '/api/v1/oauth/token',
        status,
        headers: jsonHeaders({ 'cache-control': 'no-store', ...extra }),
        body,
      });
    expect(token(400, OAUTH_ERROR_EXAMPLES.invalid_grant).status).toBe(400);
    expect(() => token(400, ERROR_EXAMPLES.validation_error)).toThrow(/body must have required property/);
    expect(() => token(401, OAUTH_ERROR_EXAMPLES.invalid_client)).toThrow(/WWW-Authenticate is missing/);
    expect(() => token(403, OAUTH_ERROR_EXAMPLES.invalid_client)).toThrow(/does not list/);
    const gateway = new Headers({
      'content-type': 'application/json',
      'x-request-id': 'r',
      'retry-after': '5',
    });
    const unavailable = ERROR_EXAMPLES.service_unavailable;
    expect(
      validator.check({
        method: 'POST',
        path: '/api/v1/oauth/token',
        status: 503,
        headers: gateway,
        body: unavailable,
      }).status,
    ).toBe(503);
  });

  it('holds webhook deliveries against the webhooks section', () => {
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1770460000',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    };
    const body = JSON.stringify(EVENT_EXAMPLES['post.created']);
    expect(validator.checkWebhook(headers, body)).toBe('postCreatedWebhook');
    expect(() => validator.checkWebhook({ ...headers, 'webhook-signature': 'sha256=abc' }, body)).toThrow(
      /webhook-signature must match pattern/,
    );
    const extra = JSON.stringify({ ...EVENT_EXAMPLES['post.created'], id: 'evt_1' });
    expect(() => validator.checkWebhook(headers, extra)).toThrow(/additional properties/);
  });
});
