import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §10: browser apps on the allowed origins may call /api/v1, never with credentials; a
// preflight needs no key and costs nothing.

const APP = 'http://app.example:3000';
let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack('cors', { CORS_ALLOWED_ORIGINS: `${APP}, https://other.example` });
  key = (await memberWithKey(stack, ['read', 'write', 'keys'])).key;
});
afterAll(() => stack.stop());

const preflight = (path: string, origin: string, method = 'POST') =>
  fetch(stack.gateway + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

describe('CORS', () => {
  it('answers a preflight from an allowed origin with 204 and exactly the documented headers', async () => {
    const res = await preflight('/api/v1/posts', APP);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id',
    );
    expect(res.headers.get('access-control-max-age')).toBe('7200');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('counts no preflight: a burst leaves the address budget as it was', async () => {
    const origin = 'https://other.example';
    const before = await gw(stack, 'GET', '/api/v1/posts', {});
    const burst = await Promise.all(Array.from({ length: 100 }, () => preflight('/api/v1/users/me', origin)));
    expect(burst.every((res) => res.status === 204)).toBe(true);
    expect(burst[0]!.headers.get('x-ratelimit-remaining')).toBeNull();
    const after = await gw(stack, 'GET', '/api/v1/posts', {});
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(
      Number(before.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  it('lets an allowed origin read the headers it needs on every answer, errors included', async () => {
    const ok = await gw(stack, 'GET', '/api/v1/posts', { key, headers: { origin: APP } });
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = ok.headers.get('access-control-expose-headers')!.split(', ');
    for (const name of ['ETag', 'Link', 'X-RateLimit-Remaining', 'RateLimit', 'Idempotent-Replayed'])
      expect(exposed).toContain(name);
    const denied = await gw(stack, 'GET', '/api/v1/posts', { key: 'wrong', headers: { origin: APP } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('gives an origin that is not allowed nothing to go on, preflight or not', async () => {
    const res = await preflight('/api/v1/posts', 'https://evil.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
    const get = await gw(stack, 'GET', '/api/v1/posts', { key, headers: { origin: 'https://evil.example' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the OAuth token endpoint cross-origin (a browser app with PKCE)', async () => {
    const res = await preflight('/api/v1/oauth/token', APP);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('never answers CORS for the account pages', async () => {
    const res = await preflight('/account/login', APP);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const page = await fetch(`${stack.gateway}/account/login`, { headers: { origin: APP } });
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
  });
});
