import type Redis from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { LeanRateLimiterRedis } from './lean-redis-limiter';

export interface Subject {
  /** `acct:<id>` or `ip:<address>`: every key of one account shares one budget. */
  key: string;
  kind: 'account' | 'anonymous';
  hourly: number;
  daily: number;
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

export type Decision =
  { allowed: true; shown: WindowState } | { allowed: false; shown: WindowState; retryAfter: number };

const WINDOWS = { hourly: 3600, daily: 86_400 } as const;
type WindowName = keyof typeof WINDOWS;

/**
 * Hourly and daily fixed windows in Redis (rate-limiter-flexible), each with an in-memory insurance
 * limiter that takes over while Redis is unreachable and hands back when it returns.
 *
 * A rejected request consumes nothing: the points both windows took for it are returned at once.
 */
export class TwoWindowLimiter {
  private readonly limiters = new Map<string, LeanRateLimiterRedis>();
  private readonly decisions: Counter<'outcome' | 'subject' | 'store'> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    registry?: Registry,
  ) {
    this.decisions = registry
      ? new Counter({
          name: 'gateway_limiter_decisions_total',
          help: 'Rate limit decisions',
          labelNames: ['outcome', 'subject', 'store'],
          registers: [registry],
        })
      : undefined;
  }

  async consume(subject: Subject): Promise<Decision> {
    const hourly = this.limiter('hourly', subject.hourly);
    const daily = this.limiter('daily', subject.daily);
    const store = this.redis.status === 'ready' ? 'redis' : 'memory';

    // Both windows in one round trip (the client pipelines commands issued in the same tick).
    const [h, d] = await Promise.all([
      settle(hourly.consume(subject.key)),
      settle(daily.consume(subject.key)),
    ]);
    if (!h.ok || !d.ok) {
      // Each window took a point, allowed or not: give both back, so a rejection costs nothing.
      await Promise.all([hourly.reward(subject.key, 1), daily.reward(subject.key, 1)]);
      this.decisions?.inc({ outcome: 'rejected', subject: subject.kind, store });
      const exceeded = [!h.ok && h.res, !d.ok && d.res].filter((res): res is RateLimiterRes => !!res);
      const retryMs = Math.max(...exceeded.map((res) => res.msBeforeNext));
      // Both windows show 0 left when both are exceeded: the tie goes to the hourly one.
      const shown = !h.ok ? state(subject.hourly, 0, h.res) : state(subject.daily, 0, d.res);
      return { allowed: false, shown, retryAfter: seconds(retryMs) };
    }
    this.decisions?.inc({ outcome: 'allowed', subject: subject.kind, store });
    const hourlyState = state(subject.hourly, h.res.remainingPoints, h.res);
    const dailyState = state(subject.daily, d.res.remainingPoints, d.res);
    // The window with fewer requests left is the one the caller should watch (tie: hourly).
    return { allowed: true, shown: dailyState.remaining < hourlyState.remaining ? dailyState : hourlyState };
  }

  private limiter(window: WindowName, points: number): LeanRateLimiterRedis {
    const id = `${window}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      // Same key prefix for every limit of a window: a plan change keeps the count, only the cap moves.
      const keyPrefix = `${this.prefix}rl:${window}`;
      limiter = new LeanRateLimiterRedis({
        storeClient: this.redis,
        keyPrefix,
        points,
        duration: WINDOWS[window],
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOWS[window] }),
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

type Settled = { ok: true; res: RateLimiterRes } | { ok: false; res: RateLimiterRes };

async function settle(consumption: Promise<RateLimiterRes>): Promise<Settled> {
  try {
    return { ok: true, res: await consumption };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { ok: false, res: rejection };
    throw rejection;
  }
}

function state(limit: number, remaining: number, res: RateLimiterRes): WindowState {
  return {
    limit,
    remaining: Math.max(0, remaining),
    reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
  };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
