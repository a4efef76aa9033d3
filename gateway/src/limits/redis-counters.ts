import type Redis from 'ioredis';

/** One fixed window of a subject in Redis: its counter's key, its length and its cap. */
export interface RedisCounter {
  key: string;
  seconds: number;
  limit: number;
}

/** A window's counter after a call, and the milliseconds until the window resets. */
export interface CounterReading {
  count: number;
  msLeft: number;
}

/*
 * Moves every counter in KEYS by ARGV[1] (1 counts a request, -1 gives one back) in one call,
 * whatever the caps. A counter made by the call expires with its window (ARGV[1 + i], seconds, for
 * the i-th key); one gone is not made again by a give-back. Answers the count and the milliseconds
 * left of each key, in order.
 */
const MOVE = `
local delta = tonumber(ARGV[1])
local counts = {}
for i, key in ipairs(KEYS) do
  local count = 0
  if delta >= 0 or redis.call('EXISTS', key) == 1 then count = redis.call('INCRBY', key, delta) end
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    ttl = tonumber(ARGV[1 + i]) * 1000
    redis.call('PEXPIRE', key, ttl)
  elseif ttl < 0 then
    ttl = 0
  end
  counts[#counts + 1] = count
  counts[#counts + 1] = ttl
end
return counts
`;

/*
 * Leases up to ARGV[1] points of a subject's budget from every window in KEYS at once. For the
 * i-th key, ARGV[3i] is its window's length in seconds, ARGV[3i + 1] its cap, and ARGV[3i + 2] the
 * points an earlier lease left unused there, which it takes back first (never below nothing). The
 * grant is all or nothing across the windows, never more than any window has left, and never more
 * than 1/ARGV[2] of what the tightest has left, but 1 while it has any: near the end of a budget,
 * requests are counted one by one. Answers the points granted (0: some window is full,
 * or none were wanted), then each window's count after the call and the milliseconds it has left.
 */
const LEASE = `
local want = tonumber(ARGV[1])
local share = tonumber(ARGV[2])
local counts = {}
local room = nil
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  local back = tonumber(ARGV[2 + 3 * i])
  if back > 0 and count > 0 then count = redis.call('DECRBY', key, math.min(back, count)) end
  counts[i] = count
  local left = tonumber(ARGV[1 + 3 * i]) - count
  if room == nil or left < room then room = left end
end
local grant = 0
if room > 0 then grant = math.min(want, math.max(1, math.floor(room / share))) end
local answer = { grant }
for i, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  if grant > 0 then counts[i] = redis.call('INCRBY', key, grant) end
  if ttl == -1 or (ttl == -2 and grant > 0) then
    ttl = tonumber(ARGV[3 * i]) * 1000
    redis.call('PEXPIRE', key, ttl)
  elseif ttl < 0 then
    ttl = 0
  end
  answer[#answer + 1] = counts[i]
  answer[#answer + 1] = ttl
end
return answer
`;

/** What a lease call got: the points granted (0 when some window is full), and each window after it. */
export interface Grant {
  points: number;
  windows: CounterReading[];
}

type Scripted = Redis & {
  moveWindows(keys: number, ...args: (string | number)[]): Promise<number[]>;
  leaseWindows(keys: number, ...args: (string | number)[]): Promise<number[]>;
};

/**
 * Fixed windows counted in Redis, all of a subject's windows in one script call: a lease takes one
 * request or a slice of them from every window at once (leases.ts hands them out), where
 * rate-limiter-flexible sent one script per window per request and a second round trip to give a
 * rejected request back. Counters are plain integers under the same keys rate-limiter-flexible used
 * (`<prefix>rl:<window>:<subject>`), so counts survive the change.
 */
export class RedisCounters {
  private readonly redis: Scripted;

  constructor(redis: Redis) {
    // ioredis sends EVALSHA and falls back to EVAL once when Redis has not seen the script.
    redis.defineCommand('moveWindows', { lua: MOVE });
    redis.defineCommand('leaseWindows', { lua: LEASE });
    this.redis = redis as Scripted;
  }

  /** Gives one counted request back in every window (never below nothing). */
  giveBack(windows: RedisCounter[]): Promise<CounterReading[]> {
    return this.move(windows, -1);
  }

  /**
   * Takes up to `want` points in every window at once, for this process to hand out without asking
   * again, after giving back in each window what an earlier lease left unused there (`back`, in
   * order; 0 by default). Never more than 1/`share` of what the tightest window has left, but 1
   * while it has any; none when one is full. With `want` 0 it only gives back.
   */
  async lease(windows: RedisCounter[], want: number, share: number, back: number[] = []): Promise<Grant> {
    const args = windows.flatMap((w, i) => [w.seconds, w.limit, back[i] ?? 0]);
    const [points, ...flat] = await this.redis.leaseWindows(
      windows.length,
      ...windows.map((w) => w.key),
      want,
      share,
      ...args,
    );
    return {
      points: points!,
      windows: windows.map((_, i) => ({ count: flat[2 * i]!, msLeft: flat[2 * i + 1]! })),
    };
  }

  /** Counts one request in every window whatever the caps (the other side of a transfer). */
  take(windows: RedisCounter[]): Promise<CounterReading[]> {
    return this.move(windows, 1);
  }

  /** The counters as they stand, counting nothing. */
  async peek(windows: RedisCounter[]): Promise<number[]> {
    const values = await this.redis.mget(...windows.map((w) => w.key));
    return values.map((value) => Number(value ?? 0));
  }

  private async move(windows: RedisCounter[], delta: 1 | -1): Promise<CounterReading[]> {
    const flat = await this.redis.moveWindows(
      windows.length,
      ...windows.map((w) => w.key),
      delta,
      ...windows.map((w) => w.seconds),
    );
    return windows.map((_, i) => ({ count: flat[2 * i]!, msLeft: flat[2 * i + 1]! }));
  }
}
