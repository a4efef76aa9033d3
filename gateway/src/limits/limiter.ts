import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import type { Logger } from '@community/logging';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Tally } from '@community/http-kit';
import { withDeadline } from './deadline';
import { Leases, type Lease, type LeaseOptions, type Taken } from './leases';
import { RedisWindows, type WindowKey } from './redis-windows';

export interface Subject {
  /** `acct:<id>`, `ip:<address>`, `pages:<address>` or `client:<id>`: one budget each. */
  key: string;
  kind: 'account' | 'anonymous' | 'pages' | 'client';
  hourly: number;
  /** No daily window when absent (the pages budget is hourly only). */
  daily?: number;
}

export interface WindowState {
  /** `hour` or `day`: the names of the IETF RateLimit headers. */
  name: WindowLabel;
  /** The window's length in seconds. */
  seconds: number;
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

export type WindowLabel = 'hour' | 'day';

/**
 * What the limiter decided about one request. `shown` is the window the `X-RateLimit-*` headers
 * describe (the tighter one); `windows` are all of the subject's, after this request.
 */
export type Decision = {
  shown: WindowState;
  windows: WindowState[];
  /** The lease of this process it was served from, if any: where a `304`'s request goes back. */
  lease?: Lease;
} & ({ allowed: true } | { allowed: false; retryAfter: number });

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

const WINDOWS = { hourly: 3600, daily: 86_400 } as const;
type WindowName = keyof typeof WINDOWS;
const LABELS: Record<WindowName, WindowLabel> = { hourly: 'hour', daily: 'day' };
type Store = 'redis' | 'memory';
type DecisionLabels = Readonly<Record<'outcome' | 'subject' | 'store', string>>;

/** The decision counter's label objects, one per combination, made once (Tally.inc). */
const DECISION_LABELS = labelTree(['allowed', 'rejected'] as const, (outcome) =>
  labelTree(['account', 'anonymous', 'pages', 'client'] as const, (subject) =>
    labelTree(['redis', 'memory'] as const, (store): DecisionLabels =>
      Object.freeze({ outcome, subject, store }),
    ),
  ),
);

function labelTree<K extends string, V>(keys: readonly K[], make: (key: K) => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, make(key)])) as Record<K, V>;
}

interface Window {
  name: WindowName;
  limit: number;
  /** Its counter for one subject in Redis. */
  redis(subject: string): WindowKey;
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
  private readonly windowSets: Record<Store, Map<number, Map<number | undefined, Window[]>>> = {
    redis: new Map(),
    memory: new Map(),
  };
  private readonly windows: RedisWindows;
  private readonly leases: Leases;
  private readonly decisions: Tally<'outcome' | 'subject' | 'store'> | undefined;
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
    this.windows = new RedisWindows(redis);
    this.leases = new Leases(this.windows, options.leases);
    this.replicas = options.replicas ?? 1;
    this.coolOffMs = options.coolOffMs ?? 5_000;
    this.deadlineMs = options.deadlineMs ?? 500;
    this.logger = options.logger;
    this.decisions = options.registry
      ? new Tally({
          name: 'gateway_limiter_decisions_total',
          help: 'Rate limit decisions',
          labelNames: ['outcome', 'subject', 'store'],
          registry: options.registry,
        })
      : undefined;
  }

  consume(subject: Subject): Promise<Decision> {
    const held = this.consumeHeld(subject);
    return held ? Promise.resolve(held) : this.inStore((store) => this.decide(subject, store));
  }

  /**
   * {@link consume} at once, when this process's lease has a point for the request (no Redis call,
   * so no deadline to watch either); null when only {@link consume} can decide.
   */
  consumeHeld(subject: Subject): Decision | null {
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
          ? (await this.windows.peek(windows.map((w) => w.redis(subject.key)))).map((n) => n - unused)
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
          this.windows.giveBack(fromWindows.map((w) => w.redis(from.key))),
          this.windows.take(toWindows.map((w) => w.redis(to.key))),
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
      if (store === 'redis') await this.windows.giveBack(windows.map((w) => w.redis(subject.key)));
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
  private windowsOf(subject: Subject, store: Store): readonly Window[] {
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
  private async count(subject: Subject, windows: readonly Window[], store: Store): Promise<Taken> {
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

  private redisKeys(subject: Subject, windows: readonly Window[]): WindowKey[] {
    return windows.map((w) => w.redis(subject.key));
  }

  private async decide(subject: Subject, store: Store): Promise<Decision> {
    const windows = this.windowsOf(subject, store);
    return this.decision(subject, windows, await this.count(subject, windows, store), store);
  }

  private decision(
    subject: Subject,
    windows: readonly Window[],
    { counted, lease }: Taken,
    store: Store,
  ): Decision {
    const now = Date.now();
    const states = counted.map(({ remaining, msLeft }, i) => state(windows[i]!, remaining, msLeft, now));
    if (counted.some((outcome) => !outcome.ok)) {
      this.decisions?.inc(DECISION_LABELS.rejected[subject.kind][store]);
      const retryMs = Math.max(...counted.filter((outcome) => !outcome.ok).map((outcome) => outcome.msLeft));
      // Both windows show 0 left when both are exceeded: the tie goes to the hourly one.
      const shown = states.find((s) => s.remaining === 0)!;
      return { allowed: false, shown, windows: states, retryAfter: seconds(retryMs) };
    }
    this.decisions?.inc(DECISION_LABELS.allowed[subject.kind][store]);
    const allowed: Decision = { allowed: true, shown: tightest(states), windows: states };
    if (lease) allowed.lease = lease;
    return allowed;
  }

  private window(window: WindowName, budget: number, store: Store): Window {
    const limit = store === 'redis' ? budget : Math.max(1, Math.floor(budget / this.replicas));
    // Same key prefix for every limit of a window: a plan change keeps the count, only the cap moves.
    const keyPrefix = `${this.prefix}rl:${window}`;
    const seconds = WINDOWS[window];
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

function state(window: Window, remaining: number, msLeft: number, now: number): WindowState {
  return {
    name: LABELS[window.name],
    seconds: WINDOWS[window.name],
    limit: window.limit,
    remaining: Math.max(0, Math.min(window.limit, remaining)),
    reset: Math.ceil((now + msLeft) / 1000),
  };
}

/** The window with fewer requests left is the one the caller should watch (tie: hourly). */
const tightest = (states: WindowState[]) =>
  states.reduce((tight, s) => (s.remaining < tight.remaining ? s : tight));

/** The decision as it stands once the request it counted is given back (a `304`). */
export function refunded(decision: Decision): Decision {
  const windows = decision.windows.map((w) => ({ ...w, remaining: Math.min(w.limit, w.remaining + 1) }));
  return { ...decision, windows, shown: tightest(windows) };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
