import { Writable } from 'node:stream';
import { createLogger } from '@community/logging';
import { start as startGateway } from '../../src/start';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('gw-edge');
});

afterAll(async () => {
  await stack.stop();
});

describe('the gateway edge', () => {
  it('passes a sane X-Request-Id through to the upstream and back', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1/posts', { key, headers: { 'x-request-id': 'qa-run-42.1' } });

    expect(res.status).toBe(200);
    // posts-service echoes the id it received; a different one would mean the gateway dropped it.
    expect(res.headers.get('x-request-id')).toBe('qa-run-42.1');
  });

  it('replaces a request id that is not sane with a generated one', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'GET', '/api/v1/nowhere', {
      key,
      headers: { 'x-request-id': 'a b' },
      undocumented: true,
    });

    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers HEAD on the version route with headers only', async () => {
    const { key } = await memberWithKey(stack);
    const res = await gw(stack, 'HEAD', '/api/v1', { key, undocumented: true });

    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it('does not count probes against any budget', async () => {
    const before = await gw(stack, 'GET', '/api/v1', { headers: { 'x-forwarded-for': '1.2.3.4' } });
    for (let i = 0; i < 3; i++) {
      const probe = await gw(stack, 'GET', '/healthz', { undocumented: true });
      expect(probe.status).toBe(200);
      expect(probe.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const after = await gw(stack, 'GET', '/api/v1');

    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(
      Number(before.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  it('labels request metrics by route template, never by raw path', async () => {
    const { key } = await memberWithKey(stack);
    await gw(stack, 'GET', '/api/v1/posts/987654', { key });
    await gw(stack, 'GET', '/api/v1/nowhere/123456', { key, undocumented: true });
    const metrics = await gw(stack, 'GET', '/metrics', { undocumented: true });

    expect(metrics.text).toMatch(
      /http_server_request_duration_seconds_count\{service="gateway",http_route="\/api\/v1\/posts\/\{id\}",http_request_method="GET",http_response_status_code="404"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /http_route="unmatched",http_request_method="GET",http_response_status_code="404"/,
    );
    expect(metrics.text).not.toContain('987654');
    expect(metrics.text).not.toContain('nowhere');
    expect(metrics.text).not.toMatch(/http_requests_total|http_request_duration_seconds/);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says the hop may set it', async () => {
    const remaining = async (ip: string) =>
      Number(
        (await gw(stack, 'GET', '/api/v1', { headers: { 'x-forwarded-for': ip } })).headers.get(
          'x-ratelimit-remaining',
        ),
      );
    await stack.restartGateway({ ANON_HOURLY_LIMIT: '50' });
    const first = await remaining('203.0.113.1');
    expect(await remaining('203.0.113.2')).toBe(first - 1);

    await stack.restartGateway({ ANON_HOURLY_LIMIT: '50', TRUST_PROXY: 'loopback' });
    const a = await remaining('203.0.113.7');
    const b = await remaining('203.0.113.8');
    expect(a).toBe(b);
    expect(await remaining('203.0.113.7')).toBe(a - 1);
  });

  it('forwards only its own X-Forwarded-* unless TRUST_PROXY trusts the hop in front', async () => {
    const issuer = async () => {
      const res = await fetch(`${stack.gateway}/.well-known/oauth-authorization-server`, {
        headers: { 'x-forwarded-proto': 'https', forwarded: 'proto=https' },
      });
      return ((await res.json()) as { issuer: string }).issuer;
    };
    await stack.restartGateway();
    // users-service derives the issuer from the protocol the gateway forwards.
    expect(await issuer()).toBe(stack.gateway);

    await stack.restartGateway({ TRUST_PROXY: 'loopback' });
    expect(await issuer()).toBe(stack.gateway.replace('http:', 'https:'));
  });

  it('logs one access line per request with the account, never the key', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger({ service: 'gateway', level: 'info', destination });
    const gateway = await startGateway(stack.config, logger);
    try {
      const { id, key } = await memberWithKey(stack);
      const res = await fetch(`${gateway.url}/api/v1/posts?limit=1`, {
        headers: { authorization: `Bearer ${key}`, 'x-request-id': 'log-check-1' },
      });
      await res.text();
      await new Promise((resolve) => setImmediate(resolve));

      const line = lines.find((l) => l.msg === 'request' && l.request_id === 'log-check-1');
      expect(line).toMatchObject({
        method: 'GET',
        route: '/api/v1/posts',
        path: '/api/v1/posts',
        status: 200,
        account_id: id,
      });
      expect(typeof line?.duration_ms).toBe('number');
      expect(JSON.stringify(lines)).not.toContain(key);
    } finally {
      await gateway.stop();
    }
  });
});
