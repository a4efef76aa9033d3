import Redis from 'ioredis';
import { redisPrefix, testInfra } from '@community/test-harness';
import { RedisCounters, type Grant, type RedisCounter } from '../../src/limits/redis-counters';

// The gateway's own fixed windows in Redis: one script call leases requests from both windows.

let redis: Redis;
let redisWindows: RedisCounters;
const prefix = redisPrefix('redis-windows');

beforeAll(() => {
  redis = new Redis(testInfra().redisUrl, { enableOfflineQueue: true });
  redisWindows = new RedisCounters(redis);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

let n = 0;
/** An hour of `hourly` and a day of `daily` for a subject of its own. */
function subject(hourly: number, daily: number): RedisCounter[] {
  const id = `s${++n}`;
  return [
    { key: `${prefix}rl:hourly:${id}`, seconds: 3600, limit: hourly },
    { key: `${prefix}rl:daily:${id}`, seconds: 86_400, limit: daily },
  ];
}

/** Leases one request, as the limiter does for a budget with little left (a share of 1). */
const one = (windows: RedisCounter[]) => redisWindows.lease(windows, 1, 1);
const counts = (grant: Grant) => grant.windows.map((w) => w.count);

describe('RedisCounters', () => {
  it('counts a request in both windows, each expiring with its own window', async () => {
    const both = subject(3, 10);
    expect(counts(await one(both))).toEqual([1, 1]);
    expect(counts(await one(both))).toEqual([2, 2]);
    const [hour = 0, day = 0] = await Promise.all(both.map((w) => redis.pttl(w.key)));
    expect(hour).toBeGreaterThan(3_590_000);
    expect(hour).toBeLessThanOrEqual(3_600_000);
    expect(day).toBeGreaterThan(86_390_000);
    // A later call keeps the window's end: a fixed window, not a sliding one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await one(both);
    expect(again.windows[0]!.msLeft).toBeLessThan(hour);
  });

  it('grants nothing in either window when one of them is full', async () => {
    const both = subject(2, 100);
    await one(both);
    await one(both);
    const refused = await one(both);
    expect([refused.points, counts(refused)]).toEqual([0, [2, 2]]);
    expect(await redisWindows.peek(both)).toEqual([2, 2]);
    // The daily window full keeps the hourly one as it was.
    const daily = subject(100, 1);
    await one(daily);
    expect([(await one(daily)).points, await redisWindows.peek(daily)]).toEqual([0, [1, 1]]);
    // A subject never seen is not made by a refusal.
    const none = subject(0, 0);
    expect((await one(none)).points).toBe(0);
    expect(await redis.exists(none[0]!.key, none[1]!.key)).toBe(0);
  });

  it('allows exactly the cap to a burst of parallel requests', async () => {
    const both = subject(10, 1000);
    const grants = await Promise.all(Array.from({ length: 50 }, () => one(both)));
    expect(grants.filter((g) => g.points === 1)).toHaveLength(10);
    expect(await redisWindows.peek(both)).toEqual([10, 10]);
  });

  it('leases at most 1/share of what the tighter window has left, and takes back what a lease left', async () => {
    const both = subject(1000, 640);
    // 640 left in the daily window: a share of 64 allows 10, though 32 were wanted.
    const slice = await redisWindows.lease(both, 32, 64);
    expect([slice.points, counts(slice)]).toEqual([10, [10, 10]]);
    // 4 of them unused, given back before the next lease: (640 - 6) / 64 allows 9.
    const next = await redisWindows.lease(both, 32, 64, [4, 4]);
    expect([next.points, counts(next)]).toEqual([9, [15, 15]]);
    // Wanting nothing only gives back, never below nothing.
    const back = await redisWindows.lease(both, 0, 64, [20, 3]);
    expect([back.points, counts(back)]).toEqual([0, [0, 12]]);
    // With less than a share left, one at a time.
    const tight = subject(100, 100);
    expect((await redisWindows.lease(tight, 32, 64)).points).toBe(1);
  });

  it('gives a request back, and never makes a counter that is gone', async () => {
    const both = subject(5, 5);
    await one(both);
    await one(both);
    expect((await redisWindows.giveBack(both)).map((w) => w.count)).toEqual([1, 1]);
    await redis.del(both[0]!.key);
    expect((await redisWindows.giveBack(both)).map((w) => w.count)).toEqual([0, 0]);
    expect(await redis.exists(both[0]!.key)).toBe(0);
    // take() counts whatever the cap: the far side of moving a request between subjects.
    const full = subject(1, 1);
    await one(full);
    expect((await redisWindows.take(full)).map((w) => w.count)).toEqual([2, 2]);
  });

  it('keeps counting what rate-limiter-flexible counted under the same keys', async () => {
    const both = subject(10, 10);
    // rate-limiter-flexible left integers with an expiry under these keys.
    await redis.set(both[0]!.key, '4', 'EX', 600);
    await redis.set(both[1]!.key, '7', 'EX', 6000);
    const grant = await one(both);
    expect(counts(grant)).toEqual([5, 8]);
    expect(grant.windows[0]!.msLeft).toBeLessThanOrEqual(600_000);
  });
});
