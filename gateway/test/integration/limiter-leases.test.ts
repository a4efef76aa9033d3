import Redis from 'ioredis';
import { redisPrefix, testInfra } from '@community/test-harness';
import type { Decision, Subject } from '../../src/limits/decision';
import { TwoWindowLimiter } from '../../src/limits/limiter';
import { RedisCounters } from '../../src/limits/redis-counters';

// Busy budgets leased to each gateway process in slices (issue 22), within the bound docs/api.md
// states ("Limits across gateways"): never more than a cap whatever the number of processes; refused
// early by at most (processes − 1) × 32 while other processes hold leased points; one process alone
// is exact.

const connections: Redis[] = [];
const limiters: TwoWindowLimiter[] = [];
afterAll(async () => {
  await Promise.all(limiters.map((limiter) => limiter.close()));
  for (const redis of connections) redis.disconnect();
});

/** A gateway process: its own connection and limiter, on a prefix shared with its peers. */
async function gateway(prefix: string, ttlMs = 1_000): Promise<TwoWindowLimiter> {
  const redis = new Redis(testInfra().redisUrl);
  connections.push(redis);
  await new Promise((resolve) => redis.once('ready', resolve));
  const limiter = new TwoWindowLimiter(redis, prefix, { leases: { ttlMs } });
  limiters.push(limiter);
  return limiter;
}

let peek: Redis;
beforeAll(() => {
  peek = new Redis(testInfra().redisUrl);
  connections.push(peek);
});

/** Each window's counter in Redis. */
async function counters(prefix: string, who: Subject): Promise<number[]> {
  const values = await peek.mget(`${prefix}rl:hourly:${who.key}`, `${prefix}rl:daily:${who.key}`);
  return values.map((value) => Number(value ?? 0));
}

const account = (key: string, hourly: number, daily = 1_000_000): Subject => ({
  key,
  kind: 'account',
  hourly,
  daily,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const allowed = (decisions: Decision[]) => decisions.filter((d) => d.allowed).length;

/** Counts the lease calls sent to Redis while `work` runs. */
async function leaseCalls(work: () => Promise<void>): Promise<number> {
  const spy = jest.spyOn(RedisCounters.prototype, 'lease');
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

it('alone, counts a busy budget down one by one to 0, then refuses, asking Redis for a slice at a time', async () => {
  const prefix = redisPrefix('leases-alone');
  const limiter = await gateway(prefix);
  const who = account('acct:1', 2_000);
  const shown: number[] = [];
  const calls = await leaseCalls(async () => {
    for (let i = 0; i < 2_000; i++) {
      const decision = await limiter.admit(who);
      expect(decision.allowed).toBe(true);
      shown.push(decision.shown.remaining);
    }
  });
  expect(shown).toEqual(Array.from({ length: 2_000 }, (_, i) => 1_999 - i));
  // Slices of up to 32, and of 1/64 of what is left: about 64 × ln(2,000 / 128) calls down to the
  // last 128, then one per request (≈ 300 in all, against 2,000 counted one by one).
  expect(calls).toBeLessThan(400);
  const over = await limiter.admit(who);
  expect(over).toMatchObject({ allowed: false, shown: { name: 'hour', remaining: 0 } });
  expect(await counters(prefix, who)).toEqual([2_000, 2_000]);
});

it('serves parallel bursts from shared calls: about one Redis call per 32 requests', async () => {
  const limiter = await gateway(redisPrefix('leases-burst'));
  const who = account('acct:2', 100_000_000);
  let served = 0;
  const calls = await leaseCalls(async () => {
    for (let round = 0; round < 60; round++) {
      const burst = await Promise.all(Array.from({ length: 32 }, () => limiter.admit(who)));
      served += allowed(burst);
      // Within one burst, each request is told a different count.
      expect(new Set(burst.map((d) => d.shown.remaining)).size).toBe(32);
    }
  });
  expect(served).toBe(60 * 32);
  expect(calls).toBeLessThan((60 * 32) / 8);
});

it('across two processes, never serves more than the cap, refuses early by at most 32, and serves the rest once leases go back', async () => {
  const prefix = redisPrefix('leases-two');
  const [a, b] = [await gateway(prefix, 200), await gateway(prefix, 200)];
  const who = account('acct:3', 3_000);
  let served = 0;
  let servedAtFirstRefusal: number | undefined;
  for (let round = 0; round < 100 && servedAtFirstRefusal === undefined; round++) {
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).admit(who)));
    served += allowed(burst);
    if (burst.some((d) => !d.allowed)) servedAtFirstRefusal = served;
    expect(served).toBeLessThanOrEqual(3_000);
  }
  expect(servedAtFirstRefusal).toBeGreaterThanOrEqual(3_000 - 32);
  // Both idle past their leases' time: what they held goes back, and either one serves it.
  await sleep(600);
  for (let i = 0; i < 100; i++) if ((await a.admit(who)).allowed) served++;
  expect(served).toBe(3_000);
  expect(await counters(prefix, who)).toEqual([3_000, 3_000]);
});

it('gives a quiet budget what it held back, and a refund goes to the lease it came from', async () => {
  const prefix = redisPrefix('leases-quiet');
  const limiter = await gateway(prefix, 200);
  const who = account('acct:4', 50_000);
  for (let i = 0; i < 100; i++) await limiter.admit(who);
  const [hour] = await counters(prefix, who);
  expect(hour).toBeGreaterThan(100); // a slice is held
  const last = await limiter.admit(who);
  await limiter.refund(who, last);
  expect(await counters(prefix, who)).toEqual([hour, hour]); // given to the lease, not to Redis
  // The lease's time passes and what is left of it goes back: Redis counts exactly what was served.
  await sleep(600);
  expect(await counters(prefix, who)).toEqual([100, 100]);
  // A quiet budget starts again at a slice of one: nothing unused.
  const next = await limiter.admit(who);
  expect(next.shown.remaining).toBe(50_000 - 101);
  expect(await counters(prefix, who)).toEqual([101, 101]);
});

it('ends a lease at a plan change: the new cap applies to the next request, and the old slice goes back', async () => {
  const prefix = redisPrefix('leases-plan');
  const limiter = await gateway(prefix);
  const pro = account('acct:5', 5_000, 50_000);
  for (let i = 0; i < 200; i++) await limiter.admit(pro);
  const downgraded = await limiter.admit(account('acct:5', 100, 1_000));
  expect(downgraded).toMatchObject({ allowed: false, shown: { name: 'hour', limit: 100, remaining: 0 } });
  expect(await counters(prefix, pro)).toEqual([200, 200]);
  const upgraded = await limiter.admit(pro);
  expect(upgraded).toMatchObject({ allowed: true, shown: { limit: 5_000, remaining: 4_799 } });
});

it('never gives a slice back to the window after the one it was leased from', async () => {
  const prefix = redisPrefix('leases-window');
  const [a, b] = [await gateway(prefix, 10_000), await gateway(prefix, 10_000)];
  const who = account('acct:6', 10_000);
  // The hourly window has 1.5 s left when process a leases from it.
  await peek.set(`${prefix}rl:hourly:${who.key}`, '0', 'PX', 1_500);
  for (let i = 0; i < 20; i++) await a.admit(who);
  const [held] = await counters(prefix, who);
  expect(held).toBeGreaterThan(20);
  await sleep(1_600);
  // A new hourly window: b counts 5 in it, then a counts 1, its old slice left behind with the old window.
  for (let i = 0; i < 5; i++) await b.admit(who);
  const fromA = await a.admit(who);
  expect(fromA.allowed).toBe(true);
  await Promise.all([a.close(), b.close()]);
  expect(await counters(prefix, who)).toEqual([6, 26]);
});
