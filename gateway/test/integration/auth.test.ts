import { errorEnvelope } from '@community/contracts';
import { waitFor } from '@community/test-harness';
import { gw, memberWithKey, mintKey, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gwauth');
});
afterAll(() => stack.stop());

function expectLimitHeaders(headers: Headers) {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(headers.get(name)).toMatch(/^\d+$/);
  }
  expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
}

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', { authorization: 'Bearer not-a-key' }],
    ['an unknown key', { authorization: `Bearer cpk_${'A'.repeat(40)}` }],
  ])('answers 401 for %s, with WWW-Authenticate, no-store and limit headers', async (_name, headers) => {
    const res = await gw(stack, 'GET', '/api/v1/posts', { headers });
    expect(res.status).toBe(401);
    errorEnvelope.parse(res.body);
    expect(res.body.error).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectLimitHeaders(res.headers);
  });

  it('serves a valid key, with the limit headers on the answer', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expectLimitHeaders(res.headers);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers the version at GET /api/v1', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1', { key });
    expect(res.body).toEqual({ success: true, data: { name: 'Community Platform API', version: '1.0.0' } });
  });

  it('answers unknown routes with the 404 envelope and limit headers', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1/nothing', { key, undocumented: true });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expectLimitHeaders(res.headers);
  });

  it('lets registration through without a key', async () => {
    const res = await gw(stack, 'POST', '/api/v1/auth/register', {
      body: { username: 'via_gateway', email: 'via@gateway.test', password: 'a long password' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.username).toBe('via_gateway');
  });

  it('refuses an expired key', async () => {
    const { id } = await memberWithKey(stack);
    // Timestamps are whole seconds: expire on a second boundary, far enough ahead that minting and
    // the first call fit before it even on a busy machine, then wait until just past it.
    const expiresAt = Math.ceil(Date.now() / 1000) * 1000 + 5_000;
    const short = await mintKey(stack, id, ['read'], { expires_at: new Date(expiresAt).toISOString() });
    expect((await gw(stack, 'GET', '/api/v1/posts', { key: short.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 300));
    expect((await gw(stack, 'GET', '/api/v1/posts', { key: short.key })).status).toBe(401);
  });

  it('refuses a revoked key within 5 seconds', async () => {
    const { id, key } = await memberWithKey(stack, ['read', 'keys']);
    const list = await gw(stack, 'GET', '/api/v1/keys', { key });
    expect(list.status).toBe(200);
    const keyId = list.body.data[0].id;
    expect((await gw(stack, 'GET', '/api/v1/posts', { key })).status).toBe(200);
    const revoked = await gw(stack, 'DELETE', `/api/v1/keys/${keyId}`, { key });
    expect(revoked.status).toBe(200);
    const started = Date.now();
    await waitFor(async () => (await gw(stack, 'GET', '/api/v1/posts', { key })).status === 401, {
      what: 'the revoked key to be refused',
      timeoutMs: 5_000,
      intervalMs: 100,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(id).toBeGreaterThan(0);
  });
});

describe('scopes', () => {
  it('answers 403 insufficient_scope with the scope a request needs', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    const write = await gw(stack, 'POST', '/api/v1/posts', {
      key,
      body: { title: 't', content: 'c', category_id: 1 },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'write' } });
    expectLimitHeaders(write.headers);
    const keys = await gw(stack, 'GET', '/api/v1/keys', { key });
    expect(keys.body.details.required_scope).toBe('keys');
    const categories = await gw(stack, 'POST', '/api/v1/categories', { key, body: { name: 'x' } });
    expect(categories.body.details.required_scope).toBe('admin');
  });

  it('ignores identity headers a client tries to set', async () => {
    const { id, key } = await memberWithKey(stack, ['read']);
    const res = await gw(stack, 'GET', '/api/v1/users/me', {
      key,
      headers: {
        'x-user-id': '1',
        'x-user-role': 'admin',
        'x-user-scopes': 'admin write',
        'x-internal-signature': 'forged',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
    expect(res.body.data.role).toBe('member');
  });

  it('needs a key for everything but the public routes, even with spoofed headers', async () => {
    const res = await gw(stack, 'GET', '/api/v1/users/me', {
      headers: { 'x-user-id': '1', 'x-user-role': 'admin' },
    });
    expect(res.status).toBe(401);
  });
});

describe('routing', () => {
  it('reaches posts, comments and categories on posts-service and users on users-service, bodies untouched', async () => {
    const { key } = await memberWithKey(stack);
    expect((await gw(stack, 'GET', '/api/v1/categories', { key })).status).toBe(200);
    expect((await gw(stack, 'GET', '/api/v1/comments/999999', { key })).status).toBe(404);
    expect((await gw(stack, 'GET', '/api/v1/users?limit=1', { key })).body.pagination.per_page).toBe(1);
    const raw = await fetch(`${stack.gateway}/api/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"title": "x",',
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: string }).error).toBe('invalid_json');
  });

  it('keeps the request id through to the service and back', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1/posts', { key, headers: { 'x-request-id': 'trace-me-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-me-123');
  });
});
