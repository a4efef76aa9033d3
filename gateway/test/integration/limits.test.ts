import Redis from 'ioredis';
import { actor, testInfra, waitFor } from '@community/test-harness';
import { gw, memberWithKey, mintKey, startStack, type Stack } from '../support/stack';

let stack: Stack;
let redis: Redis;
beforeAll(async () => {
  stack = await startStack('gwlimits', { ANON_HOURLY_LIMIT: '5', ANON_DAILY_LIMIT: '8' });
  redis = new Redis(testInfra().redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await stack.stop();
});

const limitHeaders = (headers: Headers) => ({
  limit: Number(headers.get('x-ratelimit-limit')),
  remaining: Number(headers.get('x-ratelimit-remaining')),
  reset: Number(headers.get('x-ratelimit-reset')),
});

async function setPlan(userId: number, body: Record<string, unknown>) {
  const admin = actor(1, 'admin', ['admin']);
  const res = await stack.users(admin, 'PUT', `/users/${userId}/plan`, { body });
  if (res.status !== 200) throw new Error(res.text);
}

describe('per-plan limits', () => {
  it('counts down the hourly window of a free account, and answers request 101 with 429', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    const first = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(limitHeaders(first.headers)).toMatchObject({ limit: 100, remaining: 99 });
    const hourEnd = Date.now() / 1000 + 3600;
    expect(Math.abs(limitHeaders(first.headers).reset - hourEnd)).toBeLessThanOrEqual(2);
    const second = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(limitHeaders(second.headers).remaining).toBe(98);
    for (let i = 3; i <= 100; i++) {
      const res = await gw(stack, 'GET', '/api/v1/posts', { key });
      expect(res.status).toBe(200);
    }
    const over = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('rate_limit_exceeded');
    expect(over.body.retry_after).toBeGreaterThan(3500);
    expect(over.body.retry_after).toBeLessThanOrEqual(3600);
    expect(over.headers.get('retry-after')).toBe(String(over.body.retry_after));
    expect(limitHeaders(over.headers)).toMatchObject({ limit: 100, remaining: 0 });
    expect(Object.keys(over.body).sort()).toEqual(['error', 'message', 'retry_after']);
  }, 60_000);

  it('shares one budget between all keys of an account', async () => {
    const { id, key } = await memberWithKey(stack, ['read']);
    const second = await mintKey(stack, id, ['read']);
    await gw(stack, 'GET', '/api/v1/posts', { key });
    await gw(stack, 'GET', '/api/v1/posts', { key });
    const res = await gw(stack, 'GET', '/api/v1/posts', { key: second.key });
    expect(limitHeaders(res.headers).remaining).toBe(97);
  });

  it('enforces enterprise custom limits, showing the tighter daily window, 429 at request 21', async () => {
    const { id, key } = await memberWithKey(stack, ['read']);
    await setPlan(id, { plan: 'enterprise', hourly_limit: 50, daily_limit: 20 });
    await waitFor(
      async () => limitHeaders((await gw(stack, 'GET', '/api/v1/posts', { key })).headers).limit === 20,
      {
        what: 'enterprise limits to apply',
      },
    );
    const used = Number(await redis.get(`${stack.config.REDIS_PREFIX}rl:daily:acct:${id}`));
    for (let i = used + 1; i <= 20; i++) {
      const res = await gw(stack, 'GET', '/api/v1/posts', { key });
      expect(res.status).toBe(200);
      expect(limitHeaders(res.headers)).toMatchObject({ limit: 20, remaining: 20 - i });
    }
    const over = await gw(stack, 'GET', '/api/v1/posts', { key });
    expect(over.status).toBe(429);
    expect(over.body.retry_after).toBeGreaterThan(86_000);
    expect(limitHeaders(over.headers)).toMatchObject({ limit: 20, remaining: 0 });
  });

  it('takes nothing from either window for a rejected request', async () => {
    const { id, key } = await memberWithKey(stack, ['read']);
    await setPlan(id, { plan: 'enterprise', hourly_limit: 50, daily_limit: 3 });
    await waitFor(
      async () => limitHeaders((await gw(stack, 'GET', '/api/v1/posts', { key })).headers).limit === 3,
      {
        what: 'enterprise limits to apply',
      },
    );
    const hourlyKey = `${stack.config.REDIS_PREFIX}rl:hourly:acct:${id}`;
    const dailyKey = `${stack.config.REDIS_PREFIX}rl:daily:acct:${id}`;
    while ((await gw(stack, 'GET', '/api/v1/posts', { key })).status === 200);
    const before = [Number(await redis.get(hourlyKey)), Number(await redis.get(dailyKey))];
    expect(before[1]).toBe(3);
    for (let i = 0; i < 5; i++) expect((await gw(stack, 'GET', '/api/v1/posts', { key })).status).toBe(429);
    expect([Number(await redis.get(hourlyKey)), Number(await redis.get(dailyKey))]).toEqual(before);
  });
});

describe('anonymous limits', () => {
  it('counts requests without a valid key per client address, 401s included', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await gw(stack, 'GET', '/api/v1/posts', { headers: { authorization: 'Bearer nope' } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(limitHeaders(last!.headers)).toMatchObject({ limit: 5, remaining: 0 });
  });
});
