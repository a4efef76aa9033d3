import Redis from 'ioredis';
import { redisPrefix, testInfra } from '@community/test-harness';
import { RedisWindows, type WindowKey } from '../../src/limits/redis-windows';

// The gateway's own fixed windows in Redis: one script call counts a request in both windows.

let redis: Redis;
let windows: RedisWindows;
const prefix = redisPrefix('redis-windows');

beforeAll(() => {
  redis = new Redis(testInfra().redisUrl, { enableOfflineQueue: true });
  windows = new RedisWindows(redis);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

let n = 0;
/** An hour of `hourly` and a day of `daily` for a subject of its own. */
function subject(hourly: number, daily: number): WindowKey[] {
  const id = `s${++n}`;
  return [
    { key: `${prefix}rl:hourly:${id}`, seconds: 3600, limit: hourly },
    { key: `${prefix}rl:daily:${id}`, seconds: 86_400, limit: daily },
  ];
}

describe('RedisWindows', () => {
  it('counts a request in both windows, each expiring with its own window', async () => {
    const both = subject(3, 10);
    expect((await windows.count(both)).map((w) => w.count)).toEqual([1, 1]);
    expect((await windows.count(both)).map((w) => w.count)).toEqual([2, 2]);
    const [hour = 0, day = 0] = await Promise.all(both.map((w) => redis.pttl(w.key)));
    expect(hour).toBeGreaterThan(3_590_000);
    expect(hour).toBeLessThanOrEqual(3_600_000);
    expect(day).toBeGreaterThan(86_390_000);
    // A later call keeps the window's end: a fixed window, not a sliding one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [again] = await windows.count(both);
    expect(again!.msLeft).toBeLessThan(hour!);
  });

  it('counts nothing in either window for a request one of them refuses', async () => {
    const both = subject(2, 100);
    await windows.count(both);
    await windows.count(both);
    const refused = await windows.count(both);
    expect(refused.map((w) => w.count)).toEqual([3, 3]);
    expect(await windows.peek(both)).toEqual([2, 2]);
    // The daily window refusing undoes the hourly count as well.
    const daily = subject(100, 1);
    await windows.count(daily);
    expect((await windows.count(daily)).map((w) => w.count)).toEqual([2, 2]);
    expect(await windows.peek(daily)).toEqual([1, 1]);
  });

  it('allows exactly the cap to a burst of parallel requests', async () => {
    const both = subject(10, 1000);
    const counts = await Promise.all(Array.from({ length: 50 }, () => windows.count(both)));
    expect(counts.filter(([hour]) => hour!.count <= 10)).toHaveLength(10);
    expect(await windows.peek(both)).toEqual([10, 10]);
  });

  it('gives a request back, and never makes a counter that is gone', async () => {
    const both = subject(5, 5);
    await windows.count(both);
    await windows.count(both);
    expect((await windows.giveBack(both)).map((w) => w.count)).toEqual([1, 1]);
    await redis.del(both[0]!.key);
    expect((await windows.giveBack(both)).map((w) => w.count)).toEqual([0, 0]);
    expect(await redis.exists(both[0]!.key)).toBe(0);
    // take() counts whatever the cap: the far side of moving a request between subjects.
    const full = subject(1, 1);
    await windows.count(full);
    expect((await windows.take(full)).map((w) => w.count)).toEqual([2, 2]);
  });

  it('keeps counting what rate-limiter-flexible counted under the same keys', async () => {
    const both = subject(10, 10);
    // rate-limiter-flexible left integers with an expiry under these keys.
    await redis.set(both[0]!.key, '4', 'EX', 600);
    await redis.set(both[1]!.key, '7', 'EX', 6000);
    const [hour, day] = await windows.count(both);
    expect([hour!.count, day!.count]).toEqual([5, 8]);
    expect(hour!.msLeft).toBeLessThanOrEqual(600_000);
  });
});
