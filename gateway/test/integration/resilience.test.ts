import { startTcpProxy, testInfra, waitFor, type TcpProxy } from '@community/test-harness';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

let stack: Stack;
let redisProxy: TcpProxy;
beforeAll(async () => {
  const redis = new URL(testInfra().redisUrl);
  redisProxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  stack = await startStack('gwresilience', { REDIS_URL: redisProxy.url(testInfra().redisUrl) });
});
afterAll(async () => {
  await stack.stop();
  await redisProxy.stop();
});

const remaining = (headers: Headers) => Number(headers.get('x-ratelimit-remaining'));
const ready = async () => (await (await fetch(`${stack.gateway}/readyz`)).json()) as { status: string };
const fallbackActive = async () => {
  const metrics = await (await fetch(`${stack.gateway}/metrics`)).text();
  return Number(/^gateway_limiter_fallback_active\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
};

describe('Redis unreachable', () => {
  it('keeps serving with limit headers in memory, reports degraded, and goes back to Redis', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    await waitFor(async () => (await ready()).status === 'ok', { what: 'gateway ready' });
    const before = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(remaining(before.headers)).toBe(99);
    expect(await fallbackActive()).toBe(0);

    await redisProxy.cut();
    await waitFor(async () => (await ready()).status === 'degraded', { what: 'degraded readiness' });
    expect(await fallbackActive()).toBe(1);
    const started = Date.now();
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await gw(stack, 'GET', '/api/v1/posts', { key }));
    expect(during.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const res of during) expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    // the in-memory insurance limiter counts on its own
    expect(remaining(during[4]!.headers)).toBe(remaining(during[0]!.headers) - 4);

    redisProxy.restore();
    await waitFor(async () => (await ready()).status === 'ok', { what: 'redis again', timeoutMs: 10_000 });
    // Back on Redis once the cool-off after the last failed command is over.
    await waitFor(async () => (await fallbackActive()) === 0, {
      what: 'the limiter on Redis again',
      timeoutMs: 10_000,
    });
    const after = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(after.status).toBe(200);
    // the Redis count resumes where it stood before the outage
    expect(remaining(after.headers)).toBe(98);
  }, 30_000);
});

describe('Redis unreachable behind several gateways', () => {
  it('lets an account through the in-memory fallback at most budget ÷ GATEWAY_REPLICAS', async () => {
    await stack.restartGateway({ GATEWAY_REPLICAS: '4' });
    try {
      const { key } = await memberWithKey(stack, ['read']);
      await waitFor(async () => (await ready()).status === 'ok', { what: 'gateway ready' });
      expect((await gw(stack, 'GET', '/api/v1/posts', { key })).status).toBe(200);

      await redisProxy.cut();
      await waitFor(async () => (await ready()).status === 'degraded', { what: 'degraded readiness' });
      const during = [];
      for (let i = 0; i < 30; i++) during.push(await gw(stack, 'GET', '/api/v1/posts', { key }));
      // A free account (100/h) through one of four gateways: 25 here, 100 over all four.
      expect(during.filter((res) => res.status === 200)).toHaveLength(25);
      expect(during.slice(25).map((res) => res.status)).toEqual([429, 429, 429, 429, 429]);
      expect(during[0]!.headers.get('x-ratelimit-limit')).toBe('25');
    } finally {
      redisProxy.restore();
      await waitFor(async () => (await ready()).status === 'ok', { what: 'redis again', timeoutMs: 10_000 });
      await stack.restartGateway();
    }
  }, 30_000);
});

describe('Redis hung (connected, answering nothing)', () => {
  it('costs one command timeout, then limits in memory for the cool-off instead of waiting per request', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    await waitFor(async () => (await ready()).status === 'ok', { what: 'gateway ready' });
    expect((await gw(stack, 'GET', '/api/v1/posts', { key })).status).toBe(200);

    redisProxy.freeze();
    try {
      const started = performance.now();
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await gw(stack, 'GET', '/api/v1/posts', { key })).status);
      const elapsed = performance.now() - started;
      expect(statuses).toEqual(Array(10).fill(200));
      // One wait of the limiter's 500 ms deadline, not ten.
      expect(elapsed).toBeLessThan(2_500);
      // Connected, yet deciding in memory for the cool-off.
      expect(await fallbackActive()).toBe(1);
    } finally {
      redisProxy.restore();
    }
  }, 30_000);
});

describe('an upstream down', () => {
  it('answers 503 fast while posts-service is down, then recovers by itself', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    expect((await gw(stack, 'GET', '/api/v1/posts', { key })).status).toBe(200);
    await stack.stopPosts();
    try {
      const timings: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const res = await gw(stack, 'GET', '/api/v1/posts', { key });
        timings.push(performance.now() - started);
        expect(res.status).toBe(503);
        expect(res.body.error).toBe('service_unavailable');
        expect(res.headers.get('retry-after')).toBe('5');
        expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      }
      // Fast means not waiting for UPSTREAM_TIMEOUT_MS (10 s); the margin is for a busy machine.
      expect(Math.max(...timings)).toBeLessThan(3_000);
      const metrics = await (await fetch(`${stack.gateway}/metrics`)).text();
      expect(metrics).toMatch(/gateway_breaker_state\{[^}]*upstream="posts"[^}]*\} 2/);
      // users-service is unaffected
      expect((await gw(stack, 'GET', '/api/v1/users/me', { key })).status).toBe(200);
    } finally {
      await stack.startPosts();
    }
    await waitFor(async () => (await gw(stack, 'GET', '/api/v1/posts', { key })).status === 200, {
      what: 'the breaker to close again',
      timeoutMs: 15_000,
      intervalMs: 250,
    });
  }, 30_000);
});
