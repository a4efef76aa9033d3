import type Redis from 'ioredis';

/** One fixed window of a subject in Redis: its counter's key, its length and its cap. */
export interface WindowKey {
  key: string;
  seconds: number;
  limit: number;
}

/** A window's counter after a call, and the milliseconds until the window resets. */
export interface WindowCount {
  count: number;
  msLeft: number;
}

/*
 * Moves every counter in KEYS by ARGV[1] (1 counts a request, -1 gives one back) in one call. A
 * counter made by the call expires with its window (ARGV[1 + 2i], seconds, for the i-th key); one
 * gone is not made again by a give-back. With ARGV[2] = '1', a call that takes some counter past its
 * cap (ARGV[2 + 2i]) is undone in all of them: a rejected request costs nothing. Answers the count
 * and the milliseconds left of each key, in order.
 */
const MOVE = `
local delta = tonumber(ARGV[1])
local counts = {}
local over = false
for i, key in ipairs(KEYS) do
  local count = 0
  if delta >= 0 or redis.call('EXISTS', key) == 1 then count = redis.call('INCRBY', key, delta) end
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    ttl = tonumber(ARGV[1 + 2 * i]) * 1000
    redis.call('PEXPIRE', key, ttl)
  elseif ttl < 0 then
    ttl = 0
  end
  if count > tonumber(ARGV[2 + 2 * i]) then over = true end
  counts[#counts + 1] = count
  counts[#counts + 1] = ttl
end
if over and ARGV[2] == '1' then
  for _, key in ipairs(KEYS) do redis.call('DECRBY', key, delta) end
end
return counts
`;

type Scripted = Redis & {
  moveWindows(keys: number, ...args: (string | number)[]): Promise<number[]>;
};

/**
 * Fixed windows counted in Redis, all of a subject's windows in one script call: one round trip and
 * one Redis command a request, where rate-limiter-flexible sends one script per window and a second
 * round trip to give a rejected request back. Counters are plain integers under the same keys
 * rate-limiter-flexible used (`<prefix>rl:<window>:<subject>`), so counts survive the change.
 */
export class RedisWindows {
  private readonly redis: Scripted;

  constructor(redis: Redis) {
    // ioredis sends EVALSHA and falls back to EVAL once when Redis has not seen the script.
    redis.defineCommand('moveWindows', { lua: MOVE });
    this.redis = redis as Scripted;
  }

  /** Counts one request in every window, unless that takes one past its cap: then in none. */
  count(windows: WindowKey[]): Promise<WindowCount[]> {
    return this.move(windows, 1, true);
  }

  /** Gives one counted request back in every window (never below nothing). */
  giveBack(windows: WindowKey[]): Promise<WindowCount[]> {
    return this.move(windows, -1, false);
  }

  /** Counts one request in every window whatever the caps (the other side of a transfer). */
  take(windows: WindowKey[]): Promise<WindowCount[]> {
    return this.move(windows, 1, false);
  }

  /** The counters as they stand, counting nothing. */
  async peek(windows: WindowKey[]): Promise<number[]> {
    const values = await this.redis.mget(...windows.map((w) => w.key));
    return values.map((value) => Number(value ?? 0));
  }

  private async move(windows: WindowKey[], delta: 1 | -1, allOrNone: boolean): Promise<WindowCount[]> {
    const args = windows.flatMap((w) => [w.seconds, w.limit]);
    const flat = await this.redis.moveWindows(
      windows.length,
      ...windows.map((w) => w.key),
      delta,
      allOrNone ? '1' : '0',
      ...args,
    );
    return windows.map((_, i) => ({ count: flat[2 * i]!, msLeft: flat[2 * i + 1]! }));
  }
}
