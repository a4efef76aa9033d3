import { gw, memberWithKey, startStack, type Stack } from '../support/stack';
import { breakerState, rawRequest } from '../support/raw-http';
import { LINGER_BYTES, LINGER_MS } from '../../src/http/read-body';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gwslow', { BODY_TIMEOUT_MS: '1000', ANON_HOURLY_LIMIT: '500' });
});
afterAll(async () => {
  await stack.stop();
});

const host = () => new URL(stack.gateway).host;
const register = (length: number, extra = '') =>
  `POST /api/v1/auth/register HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${length}${extra}`;
let n = 0;
const newcomer = () => {
  n++;
  const name = `slow_${process.pid}_${n}`;
  return { username: name, email: `${name}@example.test`, password: 'a long password' };
};

describe('a client that sends its body slowly', () => {
  it('gets 408 request_timeout from the gateway, and nobody else notices', async () => {
    // Eight registrations that declare 200 bytes and send 20: the users-service breaker would open
    // if their slowness counted against it.
    const slow = await Promise.all(
      Array.from({ length: 8 }, () => rawRequest(stack.gateway, register(200), '{"username":"slo', 8_000)),
    );
    for (const answer of slow) {
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({
        error: 'request_timeout',
        message: 'the request body did not arrive within 1 seconds',
      });
      expect(answer.headers.connection).toBe('close');
      expect(answer.ms).toBeLessThan(5_000);
    }
    expect(await breakerState(stack.gateway, 'users')).toBe(0);
    const res = await gw(stack, 'POST', '/api/v1/auth/register', { body: newcomer() });
    expect(res.status).toBe(201);
  }, 30_000);

  it('forwards a body that arrives in pieces, byte for byte', async () => {
    const body = JSON.stringify(newcomer());
    const answer = await rawRequest(
      stack.gateway,
      `POST /api/v1/auth/register HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close`,
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(answer.status).toBe(201);
    expect(answer.body.data.username).toBe(JSON.parse(body).username);
  });

  it('refuses a body declared over 64 KiB at once with 413, without waiting for it', async () => {
    const answer = await rawRequest(stack.gateway, register(70_000), '{', 5_000);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
    expect(answer.headers.connection).toBe('close');
    expect(answer.firstByteMs).toBeLessThan(1_000);
    // What never comes is waited for a bounded time only.
    expect(answer.ms).toBeLessThan(LINGER_MS + 1_000);
  });

  it('lets a client still sending the body it declared finish writing it, then closes cleanly', async () => {
    // A client uploads 70 kB in pieces and reads the 413 only once it has written everything, as
    // fetch does. Closing at once reset the connection under its writes (EPIPE, ECONNRESET) and
    // it never saw the 413.
    const pieces = ['{', ...Array.from({ length: 10 }, () => 'x'.repeat(7_000))];
    const answer = await rawRequest(stack.gateway, register(70_001), pieces, 5_000, 30);
    expect(answer.writeError).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
    expect(answer.firstByteMs).toBeLessThan(250);
  });

  it('never serves a request pipelined behind a refused body: the 413 said the connection closes', async () => {
    const late = newcomer();
    const second = JSON.stringify(late);
    const pipelined = `POST /api/v1/auth/register HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(second)}\r\n\r\n${second}`;
    const answer = await rawRequest(
      stack.gateway,
      register(70_000),
      // In one write: the parser reads the body's end and the next request at once.
      'x'.repeat(70_000) + pipelined,
    );
    expect(answer.status).toBe(413);
    // One answer on the connection, and the second request never ran: its user is still free.
    expect(answer.raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413']);
    const res = await gw(stack, 'POST', '/api/v1/auth/register', { body: late });
    expect(res.status).toBe(201);
  });

  it('reads at most LINGER_BYTES of a refused body: a client that sends on and on is cut off', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const pieces = Array.from({ length: Math.ceil((2 * LINGER_BYTES) / piece.length) }, () => piece);
    const answer = await rawRequest(stack.gateway, register(1_000_000_000), pieces, 10_000, 5);
    expect(answer.status).toBe(413);
    expect(answer.ms).toBeLessThan(LINGER_MS);
  });

  it('refuses a chunked body that grows past 64 KiB with 413', async () => {
    const chunk = 'x'.repeat(16 * 1024);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const answer = await rawRequest(
      stack.gateway,
      `POST /api/v1/auth/register HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
      [...chunks, '0\r\n\r\n'],
      5_000,
      30,
    );
    expect(answer.writeError).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
  });
});

describe('key lookups and the users-service traffic', () => {
  it('have breakers of their own: one open leaves the other working', async () => {
    const { breakers } = stack.gatewayService();
    const { key } = await memberWithKey(stack, ['read']);
    breakers.users!.open();
    try {
      // The key was never seen: the gateway asks users-service, through the key-lookup breaker.
      expect((await gw(stack, 'GET', '/api/v1/posts?limit=1', { key })).status).toBe(200);
      const registration = await gw(stack, 'POST', '/api/v1/auth/register', { body: newcomer() });
      expect([registration.status, registration.body.error]).toEqual([503, 'service_unavailable']);
      expect(await breakerState(stack.gateway, 'users')).toBe(2);
      expect(await breakerState(stack.gateway, 'users_keys')).toBe(0);
    } finally {
      breakers.users!.close();
    }

    const other = await memberWithKey(stack, ['read']);
    breakers.users_keys!.open();
    try {
      const lookup = await gw(stack, 'GET', '/api/v1/posts?limit=1', { key: other.key });
      expect([lookup.status, lookup.body.error]).toEqual([503, 'service_unavailable']);
      expect((await gw(stack, 'POST', '/api/v1/auth/register', { body: newcomer() })).status).toBe(201);
    } finally {
      breakers.users_keys!.close();
    }
  });
});

describe('a path with repeated slashes', () => {
  it('is answered as the path it normalises to, never with a 401 that blames the gateway', async () => {
    const { id, key } = await memberWithKey(stack, ['read']);
    const res = await gw(stack, 'GET', '/api/v1/users//me', { key, undocumented: true });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
    expect((await gw(stack, 'GET', '/api/v1//users///me?x=1', { key, undocumented: true })).status).toBe(200);
  });

  it('needs the scope of the normalised path: // does not dodge the admin scope', async () => {
    const { id, key } = await memberWithKey(stack, ['read', 'write']);
    const res = await gw(stack, 'PUT', `/api/v1/users/${id}//role`, {
      key,
      body: { role: 'admin' },
      undocumented: true,
    });
    expect([res.status, res.body.error]).toEqual([403, 'insufficient_scope']);
    expect(res.body.details).toEqual({ required_scope: 'admin' });
  });
});
