import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import type { Logger } from '@community/logging';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { withDeadline } from './deadline';
import { Leases, type LeaseOptions, type Taken } from './leases';
import { LimiterMetrics } from './limiter-metrics';
import { RedisCounters, type RedisCounter } from './redis-counters';
import {
  budgetWindow,
  PERIOD_SECONDS,
  seconds,
  tightest,
  type Decision,
  type Period,
  type Subject,
} from './decision';

export interface LimiterOptions {
  /** How many gateways share the Redis budget: the in-memory fallback allows each budget ÷ replicas. */
  replicas?: number;
  /** How long to stay in memory after Redis failed a command, before trying Redis again. */
  coolOffMs?: number;
  /** How long a decision waits on Redis before it is made in memory (500 ms). */
  deadlineMs?: number;
  registry?: Registry;
  /** Told each time the limiter turns to memory for a cool-off, and why. */
  logger?: Logger;
  /** How this process leases slices of busy budgets from Redis (leases.ts). */
  leases?: LeaseOptions;
}

export type Store = 'redis' | 'memory';

/** One period's counter of a budget: in Redis, or in this process while Redis is away. */
interface PeriodCounter {
  name: Period;
  limit: number;
  /** Its counter for one subject in Redis. */
  redis(subject: string): RedisCounter;
  /** Its counters in this process, for while Redis is away (made on first use). */
  memory(): RateLimiterMemory;
}

/**
 * Hourly and daily fixed windows in Redis, leased to this process in small slices for busy budgets
 * (leases.ts: never more than a cap, within a stated bound across gateways), with a per-process
 * in-memory fallback while Redis is unreachable (DESIGN.md §9): it allows each subject budget ÷
 * GATEWAY_REPLICAS, so all replicas together stay within the budget, and after a failed command,
 * or one without an answer by the deadline (500 ms), the gateway stays on it for a cool-off (5 s)
 * instead of waiting on Redis per request. An answer that came in time but was read late, because
 * this process was starved of CPU, still counts (withDeadline).
 *
 * A rejected request consumes nothing: the points the windows took for it are returned at once.
 */
export class TwoWindowLimiter {
  private readonly memory = new Map<string, RateLimiterMemory>();
  private readonly windowSets: Record<Store, Map<number, Map<number | undefined, PeriodCounter[]>>> = {
    redis: new Map(),
    memory: new Map(),
  };
  private readonly counters: RedisCounters;
  private readonly leases: Leases;
  private readonly metrics: LimiterMetrics | undefined;
  private readonly replicas: number;
  private readonly coolOffMs: number;
  private readonly deadlineMs: number;
  private readonly logger: Logger | undefined;
  private redisAgainAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: LimiterOptions = {},
  ) {
    this.counters = new RedisCounters(redis);
    this.leases = new Leases(this.counters, options.leases);
    this.replicas = options.replicas ?? 1;
    this.coolOffMs = options.coolOffMs ?? 5_000;
    this.deadlineMs = options.deadlineMs ?? 500;
    this.logger = options.logger;
    if (options.registry) this.metrics = new LimiterMetrics(options.registry, () => !this.redisUsable());
  }

  /**
   * Counts one request of the subject, or refuses it: the one entry point. The decision is made at
   * once when this process's lease has a point for it (most requests of a busy account: no Redis
   * call, so no deadline to watch either), else once Redis — or, without it, memory — has answered.
   */
  admit(subject: Subject): Decision | Promise<Decision> {
    return this.fromLease(subject) ?? this.inStore((store) => this.decide(subject, store));
  }

  /** The decision this process's lease can make alone, or null. */
  private fromLease(subject: Subject): Decision | null {
    if (!this.redisUsable()) return null;
    const windows = this.windowsOf(subject, 'redis');
    // Only the caps: the windows' Redis keys are made when a lease call needs them.
    const taken = this.leases.takeHeld(subject.key, windows);
    return taken ? this.decision(subject, windows, taken, 'redis') : null;
  }

  /** Gives this process's unused leased points back to Redis (at shutdown). */
  close(): Promise<void> {
    return this.leases.close();
  }

  /** Whether some window of the subject has nothing left; counts nothing. */
  exhausted(subject: Subject): Promise<boolean> {
    return this.inStore(async (store) => {
      const windows = this.windowsOf(subject, store);
      // Points this process leased and has not handed out are counted in Redis, not used.
      const unused = store === 'redis' ? this.leases.unused(subject.key) : 0;
      const used =
        store === 'redis'
          ? (await this.counters.peek(windows.map((w) => w.redis(subject.key)))).map((n) => n - unused)
          : await Promise.all(
              windows.map(async (w) => (await w.memory().get(subject.key))?.consumedPoints ?? 0),
            );
      return used.some((count, i) => count >= windows[i]!.limit);
    });
  }

  /**
   * Moves one counted request from one subject to another: given back to `from`, taken from `to`.
   * All commands leave in one round trip, so a request that comes in afterwards is counted after.
   */
  recharge(from: Subject, to: Subject): Promise<void> {
    return this.inStore(async (store) => {
      const fromWindows = this.windowsOf(from, store);
      const toWindows = this.windowsOf(to, store);
      if (store === 'redis') {
        await Promise.all([
          this.counters.giveBack(fromWindows.map((w) => w.redis(from.key))),
          this.counters.take(toWindows.map((w) => w.redis(to.key))),
        ]);
        return;
      }
      await Promise.all([
        ...fromWindows.map((w) => w.memory().reward(from.key, 1)),
        ...toWindows.map((w) => settle(w.memory().consume(to.key))),
      ]);
    });
  }

  /**
   * Gives a counted request back in every window of the subject (a `304`: DESIGN.md §10): to the
   * lease it was served from while this process still holds it, else in Redis. The commands are
   * queued on the connection at once, so the caller's next request is counted after.
   */
  refund(subject: Subject, decision?: Decision): Promise<void> {
    if (decision?.lease && this.leases.giveBack(subject.key, decision.lease)) return Promise.resolve();
    return this.inStore(async (store) => {
      const windows = this.windowsOf(subject, store);
      if (store === 'redis') await this.counters.giveBack(windows.map((w) => w.redis(subject.key)));
      else await Promise.all(windows.map((w) => w.memory().reward(subject.key, 1)));
    });
  }

  /** Connected, and not in a cool-off after a failure. */
  private redisUsable(): boolean {
    return this.redis.status === 'ready' && Date.now() >= this.redisAgainAt;
  }

  private async inStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
    if (this.redisUsable()) {
      try {
        return await withDeadline(work('redis'), this.deadlineMs);
      } catch (error) {
        // Down, or no answer by the deadline: memory for a while, not a wait per request.
        if (Date.now() >= this.redisAgainAt)
          this.logger?.warn(
            { reason: (error as Error).message, coolOffMs: this.coolOffMs },
            'redis failed a limit decision: limiting in memory for the cool-off',
          );
        this.redisAgainAt = Date.now() + this.coolOffMs;
      }
    }
    return work('memory');
  }

  /** A subject's windows, made once for each pair of caps (one per plan or budget: a handful). */
  private windowsOf(subject: Subject, store: Store): readonly PeriodCounter[] {
    const byHourly = this.windowSets[store];
    let byDaily = byHourly.get(subject.hourly);
    if (!byDaily) byHourly.set(subject.hourly, (byDaily = new Map()));
    let windows = byDaily.get(subject.daily);
    if (!windows) {
      windows = [this.window('hourly', subject.hourly, store)];
      if (subject.daily !== undefined) windows.push(this.window('daily', subject.daily, store));
      byDaily.set(subject.daily, windows);
    }
    return windows;
  }

  /**
   * Counts the request in every window, or in none when one is full. What each window shows left:
   * after the request when allowed; when refused, 0 for a full window and what the other has.
   */
  private async count(subject: Subject, windows: readonly PeriodCounter[], store: Store): Promise<Taken> {
    if (store === 'redis') return this.leases.take(subject.key, this.redisKeys(subject, windows));
    const outcomes = await Promise.all(windows.map((w) => settle(w.memory().consume(subject.key))));
    const refused = outcomes.some((outcome) => !outcome.ok);
    // Each window took a point, allowed or not: give them back, so a rejection costs nothing.
    if (refused) await Promise.all(windows.map((w) => w.memory().reward(subject.key, 1)));
    const counted = outcomes.map(({ ok, res }) => ({
      ok,
      remaining: !refused ? res.remainingPoints : ok ? res.remainingPoints + 1 : 0,
      msLeft: res.msBeforeNext,
    }));
    return { counted, lease: null };
  }

  private redisKeys(subject: Subject, windows: readonly PeriodCounter[]): RedisCounter[] {
    return windows.map((w) => w.redis(subject.key));
  }

  private async decide(subject: Subject, store: Store): Promise<Decision> {
    const windows = this.windowsOf(subject, store);
    return this.decision(subject, windows, await this.count(subject, windows, store), store);
  }

  private decision(
    subject: Subject,
    windows: readonly PeriodCounter[],
    { counted, lease }: Taken,
    store: Store,
  ): Decision {
    const now = Date.now();
    const states = counted.map(({ remaining, msLeft }, i) =>
      budgetWindow(windows[i]!.name, windows[i]!.limit, remaining, msLeft, now),
    );
    if (counted.some((outcome) => !outcome.ok)) {
      this.metrics?.decided('rejected', subject.kind, store);
      const retryMs = Math.max(...counted.filter((outcome) => !outcome.ok).map((outcome) => outcome.msLeft));
      // Both windows show 0 left when both are exceeded: the tie goes to the hourly one.
      const shown = states.find((s) => s.remaining === 0)!;
      return { allowed: false, shown, windows: states, retryAfter: seconds(retryMs) };
    }
    this.metrics?.decided('allowed', subject.kind, store);
    const allowed: Decision = { allowed: true, shown: tightest(states), windows: states };
    if (lease) allowed.lease = lease;
    return allowed;
  }

  private window(window: Period, budget: number, store: Store): PeriodCounter {
    const limit = store === 'redis' ? budget : Math.max(1, Math.floor(budget / this.replicas));
    // Same key prefix for every limit of a window: a plan change keeps the count, only the cap moves.
    const keyPrefix = `${this.prefix}rl:${window}`;
    const seconds = PERIOD_SECONDS[window];
    const memory = () => {
      let limiter = this.memory.get(`${window}:${limit}`);
      if (!limiter) {
        limiter = new RateLimiterMemory({ keyPrefix, points: limit, duration: seconds });
        this.memory.set(`${window}:${limit}`, limiter);
      }
      return limiter;
    };
    return {
      name: window,
      limit,
      redis: (subject) => ({ key: `${keyPrefix}:${subject}`, seconds, limit }),
      memory,
    };
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
