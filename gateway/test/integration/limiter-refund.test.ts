import Redis from 'ioredis';
import { redisPrefix, testInfra } from '@community/test-harness';
import { refunded, type Subject } from '../../src/limits/decision';
import { TwoWindowLimiter } from '../../src/limits/limiter';

// The refund of a 304 (DESIGN.md §10), in Redis and in the in-memory fallback.

const subject = (key: string): Subject => ({ key, kind: 'account', hourly: 5, daily: 8 });
const left = (decision: { windows: { name: string; remaining: number }[] }) =>
  decision.windows.map((w) => `${w.name}=${w.remaining}`);

let redis: Redis;
beforeAll(() => {
  redis = new Redis(testInfra().redisUrl);
});
afterAll(() => redis.disconnect());

it('gives a request back in both Redis windows', async () => {
  const limiter = new TwoWindowLimiter(redis, redisPrefix('refund'));
  const who = subject('acct:1');
  await limiter.admit(who);
  const second = await limiter.admit(who);
  expect(left(second)).toEqual(['hour=3', 'day=6']);
  expect(left(refunded(second))).toEqual(['hour=4', 'day=7']);
  await limiter.refund(who);
  expect(left(await limiter.admit(who))).toEqual(['hour=3', 'day=6']);
});

it('gives a request back in memory while Redis is away', async () => {
  const away = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false });
  const limiter = new TwoWindowLimiter(away, 'refund-memory:');
  const who = subject('acct:2');
  await limiter.admit(who);
  await limiter.refund(who);
  expect(left(await limiter.admit(who))).toEqual(['hour=4', 'day=7']);
  away.disconnect();
});

it('never shows more left than the window holds, and shows the tighter window', () => {
  const window = (name: 'hour' | 'day', limit: number, remaining: number) => ({
    name,
    seconds: name === 'hour' ? 3600 : 86_400,
    limit,
    remaining,
    reset: 0,
  });
  const decision = {
    allowed: true as const,
    shown: window('day', 8, 2),
    windows: [window('hour', 5, 5), window('day', 8, 2)],
  };
  const after = refunded(decision);
  expect(left(after)).toEqual(['hour=5', 'day=3']);
  expect(after.shown).toMatchObject({ name: 'day', remaining: 3 });
});
