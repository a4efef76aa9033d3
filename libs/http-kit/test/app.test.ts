import type { Router } from 'express';
import { z } from 'zod';
import { AppError, ValidationError, idField, text } from '@community/contracts';
import { createLogger } from '@community/logging';
import {
  createRegistry,
  createServiceApp,
  listen,
  parseId,
  parseWith,
  requireActor,
  resource,
  sendData,
  signIdentity,
  type RunningServer,
} from '@community/http-kit';

const token = 'test-internal-token-0123456789';
const logger = createLogger({ service: 'http-kit-test', level: 'silent' });
let healthy = true;
let server: RunningServer;
let release: () => void = () => {};

const body = z.strictObject({ name: text({ min: 1, max: 5 }), count: idField.optional() });

function routes(router: Router) {
  resource(router, '/things', {
    post: (req, res) => sendData(res, parseWith(body, req.body), 201),
  });
  resource(router, '/things/:id', {
    get: (req, res) =>
      sendData(res, { id: parseId(req.params.id, 'thing'), actor: requireActor(res.locals).userId }),
  });
  router.get('/credential', (_req, res) => {
    const { expiresAt } = requireActor(res.locals);
    sendData(res, { expires_at: expiresAt ? expiresAt.toISOString() : null });
  });
  router.get('/boom', () => {
    throw new Error('select * from secrets where password = hunter2');
  });
  router.get('/db-down', () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  router.get('/deadlocked', () => {
    throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
  });
  router.get('/serialization', () => {
    throw Object.assign(new Error('could not serialize access'), { code: '40001' });
  });
  router.get('/conflict', () => {
    throw new AppError('conflict', 'already there');
  });
  router.get('/slow', async (_req, res) => {
    await new Promise<void>((resolve) => (release = resolve));
    sendData(res, { slow: true });
  });
}

beforeAll(async () => {
  const registry = createRegistry('http-kit-test');
  const app = createServiceApp({
    logger,
    internalToken: token,
    routes,
    health: {
      version: '9.9.9',
      registry,
      isShuttingDown: () => false,
      checks: [
        { name: 'db', critical: true, run: async () => (healthy ? 1 : Promise.reject(new Error('refused'))) },
        { name: 'broker', critical: false, run: () => Promise.reject(new Error('not connected')) },
      ],
    },
  });
  server = await listen(app, 0, '127.0.0.1');
});
afterAll(() => server.close(100));

const member = { userId: 7, role: 'member' as const, scopes: new Set(['read', 'write'] as const) };

async function call(
  method: string,
  path: string,
  init: { body?: string | Uint8Array; headers?: Record<string, string> } = {},
) {
  const url = `/api/v1${path}`;
  const res = await fetch(server.url + url, {
    method,
    body: init.body,
    headers: { ...signIdentity(token, { method, url, actor: member }), ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

describe('createServiceApp', () => {
  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await call('GET', '/things/1', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await call('GET', '/things/1', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('maps every validation failure to the envelope, first failure on top', async () => {
    const res = await call('POST', '/things', {
      body: JSON.stringify({ name: 'toolong', count: '3', extra: true }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: 'validation_error',
      message: 'name must be at most 5 characters',
      details: {
        field: 'name',
        code: 'too_long',
        errors: [
          { field: 'name', code: 'too_long', message: 'name must be at most 5 characters' },
          { field: 'count', code: 'invalid_type', message: 'count must be an integer' },
          { field: 'extra', code: 'unrecognized_key', message: 'extra is not a recognised field' },
        ],
      },
    });
  });

  it('accepts application/*+json and treats a missing body as {}', async () => {
    const ok = await call('POST', '/things', {
      body: '{"name":"ab"}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(ok.status).toBe(201);
    const empty = await call('POST', '/things');
    expect(empty.json.details).toMatchObject({ field: 'name', code: 'required' });
  });

  it('answers 400 invalid_json for a body that is not valid UTF-8, never replacing the bytes', async () => {
    const json = { 'content-type': 'application/json' };
    for (const bytes of [
      [0xff], // never valid
      [0xc3, 0x28], // a broken two-byte sequence
      [0xed, 0xa0, 0x80], // an encoded UTF-16 surrogate
      [0xc0, 0xaf], // an overlong "/"
    ]) {
      const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('"}')]);
      const res = await call('POST', '/things', { body, headers: json });
      expect([res.status, res.json.error, res.json.message]).toEqual([
        400,
        'invalid_json',
        'the request body is not valid UTF-8',
      ]);
    }
    const good = await call('POST', '/things', { body: Buffer.from('{"name":"café"}'), headers: json });
    expect([good.status, good.json.data.name]).toEqual([201, 'café']);
  });

  it('answers 415 for a non-JSON body, 400 for broken JSON and 413 over 64 KiB', async () => {
    expect(
      (
        await call('POST', '/things', {
          body: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).json.error,
    ).toBe('unsupported_media_type');
    expect((await call('POST', '/things', { body: 'name=x' })).status).toBe(415);
    expect(
      (await call('POST', '/things', { body: '{"name":', headers: { 'content-type': 'application/json' } }))
        .json.error,
    ).toBe('invalid_json');
    const big = JSON.stringify({ name: 'x'.repeat(65 * 1024) });
    const tooLarge = await call('POST', '/things', {
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.error).toBe('payload_too_large');
  });

  it('never leaks internals in a 500, and quotes the request id', async () => {
    const res = await call('GET', '/boom', { headers: { 'x-request-id': 'req-500' } });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      error: 'internal_error',
      message: 'an internal error occurred; quote the request id when reporting it',
      details: { request_id: 'req-500' },
    });
    expect(res.text).not.toMatch(/secrets|hunter2|at \w/);
  });

  it('turns an unreachable database into 503 with Retry-After', async () => {
    const res = await call('GET', '/db-down');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.json.error).toBe('service_unavailable');
  });

  it('turns a transaction PostgreSQL undid for racing another into a 503 to send again at once', async () => {
    for (const path of ['/deadlocked', '/serialization']) {
      const res = await call('GET', path);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json).toEqual({
        error: 'service_unavailable',
        message: 'this request raced another one and was undone; send it again',
      });
    }
  });

  it('maps trusted errors by code', async () => {
    expect((await call('GET', '/conflict')).status).toBe(409);
  });

  it('answers 404 for unknown routes and 405 with Allow for known paths', async () => {
    const missing = await call('GET', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'not_found', message: 'route not found' });
    const wrong = await call('DELETE', '/things');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('rejects unsigned, forged and stale identity with 401 and WWW-Authenticate', async () => {
    const unsigned = await fetch(`${server.url}/api/v1/things/1`, {
      headers: { 'x-user-id': '1', 'x-user-role': 'admin' },
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toBe('Bearer');
    const headers = signIdentity(token, { method: 'GET', url: '/api/v1/things/1', actor: member });
    const forged = await fetch(`${server.url}/api/v1/things/1`, {
      headers: { ...headers, 'x-user-role': 'admin' },
    });
    expect(forged.status).toBe(401);
    const otherPath = await fetch(`${server.url}/api/v1/things/2`, { headers });
    expect(otherPath.status).toBe(401);
    const stale = signIdentity(token, {
      method: 'GET',
      url: '/api/v1/things/1',
      actor: member,
      now: Date.now() - 10 * 60_000,
    });
    expect((await fetch(`${server.url}/api/v1/things/1`, { headers: stale })).status).toBe(401);
    const wrongKey = signIdentity('another-token-0123456789', {
      method: 'GET',
      url: '/api/v1/things/1',
      actor: member,
    });
    expect((await fetch(`${server.url}/api/v1/things/1`, { headers: wrongKey })).status).toBe(401);
  });

  it("signs the credential's expiry: passed on when signed, refused when added or changed", async () => {
    const url = '/api/v1/credential';
    const get = (headers: Record<string, string>) => fetch(server.url + url, { headers });
    const expiring = { ...member, expiresAt: new Date('2027-01-31T00:00:00Z') };
    const signed = signIdentity(token, { method: 'GET', url, actor: expiring });
    expect(signed['x-user-expires']).toBe('2027-01-31T00:00:00Z');
    expect(await (await get(signed)).json()).toEqual({
      success: true,
      data: { expires_at: '2027-01-31T00:00:00.000Z' },
    });

    const changed = await get({ ...signed, 'x-user-expires': '2099-01-01T00:00:00Z' });
    const dropped = { ...signed };
    delete dropped['x-user-expires'];
    const unsignedExpiry = {
      ...signIdentity(token, { method: 'GET', url, actor: member }),
      'x-user-expires': '2027-01-31T00:00:00Z',
    };
    expect([changed.status, (await get(dropped)).status, (await get(unsignedExpiry)).status]).toEqual([
      401, 401, 401,
    ]);

    const never = await get(signIdentity(token, { method: 'GET', url, actor: member }));
    expect(await never.json()).toEqual({ success: true, data: { expires_at: null } });
  });

  it('passes the signed actor to handlers', async () => {
    expect((await call('GET', '/things/12')).json).toEqual({ success: true, data: { id: 12, actor: 7 } });
  });

  it('reports readiness per dependency with the version', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    const json = (await ready.json()) as Record<string, unknown>;
    expect(ready.status).toBe(200);
    expect(json).toMatchObject({
      status: 'degraded',
      version: '9.9.9',
      checks: { db: { status: 'ok' }, broker: { status: 'down', error: 'not connected' } },
    });
    healthy = false;
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { status: string }).status).toBe('unavailable');
    healthy = true;
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it('exposes request durations by route template, never the raw path', async () => {
    await call('GET', '/things/5');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_server_request_duration_seconds_count\{service="http-kit-test",http_route="\/api\/v1\/things\/\{id\}",http_request_method="GET",http_response_status_code="200"\} [1-9]/,
    );
    expect(metrics).not.toMatch(/http_route="[^"]*\/5"/);
  });

  it('lets in-flight requests finish on close', async () => {
    const second = await listen(server.server.listeners('request')[0] as never, 0, '127.0.0.1');
    const url = '/api/v1/slow';
    const pending = fetch(second.url + url, {
      headers: signIdentity(token, { method: 'GET', url, actor: member }),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = second.close(5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    const started = Date.now();
    await closing;
    // At once, not after the 5 s grace (the margin is for a busy machine).
    expect(Date.now() - started).toBeLessThan(4_000);
    await expect(fetch(second.url + url)).rejects.toThrow();
  });
});

describe('parseId', () => {
  it.each(['1', '2147483647'])('accepts %s', (raw) => expect(parseId(raw)).toBe(Number(raw)));
  it.each(['0', '01', '-1', '2147483648', 'x', '1.0', undefined, ['1']])('refuses %p as 404', (raw) => {
    expect(() => parseId(raw)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('ValidationError', () => {
  it('needs at least one failure', () => {
    expect(() => new ValidationError([])).toThrow();
  });
});
