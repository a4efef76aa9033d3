import { RateLimitedError } from '@community/contracts';
import { callerOf } from './identity';

export interface SlotsOptions {
  /** How many run at once. */
  size: number;
  /** How many may wait for a slot; more are refused at once (any number by default). */
  queue?: number;
  /** How many one caller may have running and waiting together (any number by default). */
  perCaller?: number;
  /** How long one may wait for a slot before it is refused (for ever by default). */
  maxWaitMs?: number;
}

/** Why a piece of work was refused before it started. */
export type Refusal = 'caller' | 'queue' | 'wait';

/** Refused before it started: the caller's share in use, the queue full, or no slot in time. */
export class SlotsFull extends Error {
  constructor(readonly reason: Refusal) {
    super(`refused: ${reason}`);
  }
}

interface Waiter {
  resolve(): void;
  timer?: NodeJS.Timeout;
}

/**
 * At most `size` pieces of one kind of work at once, the rest waiting in arrival order: what keeps
 * a burst of expensive requests (searches) from taking every database connection and core from the
 * cheap ones. A bounded queue, a bounded wait and a share per caller turn an overload into fast
 * refusals ({@link SlotsFull}) instead of a slowdown for everyone.
 */
export class Slots {
  private running = 0;
  /** Insertion-ordered: the first waited longest. */
  private readonly waiting = new Set<Waiter>();
  private readonly callers = new Map<string, number>();
  private readonly size: number;
  private readonly queue: number;
  private readonly perCaller: number;
  private readonly maxWaitMs: number;

  constructor({ size, queue = Infinity, perCaller = Infinity, maxWaitMs = Infinity }: SlotsOptions) {
    this.size = size;
    this.queue = queue;
    this.perCaller = perCaller;
    this.maxWaitMs = maxWaitMs;
  }

  /** Runs `work` in a slot once one is free; rejects with SlotsFull when refused before it starts. */
  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    const held = this.callers.get(caller) ?? 0;
    if (held >= this.perCaller) throw new SlotsFull('caller');
    if (this.running >= this.size && this.waiting.size >= this.queue) throw new SlotsFull('queue');
    this.callers.set(caller, held + 1);
    try {
      await this.acquire();
      try {
        return await work();
      } finally {
        this.release();
      }
    } finally {
      const left = this.callers.get(caller)! - 1;
      if (left === 0) this.callers.delete(caller);
      else this.callers.set(caller, left);
    }
  }

  /** Running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.size };
  }

  private acquire(): Promise<void> {
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve };
      if (Number.isFinite(this.maxWaitMs))
        waiter.timer = setTimeout(() => {
          this.waiting.delete(waiter);
          reject(new SlotsFull('wait'));
        }, this.maxWaitMs);
      this.waiting.add(waiter);
    });
  }

  /** The slot passes to the first waiting, if any. */
  private release(): void {
    const next = this.waiting.values().next().value;
    if (!next) {
      this.running--;
      return;
    }
    this.waiting.delete(next);
    clearTimeout(next.timer);
    next.resolve();
  }
}

/**
 * The searches one service process runs at once (SEARCH_CONCURRENCY): up to 8 per slot wait, for at
 * most a second, and one caller has at most 4 running and waiting; the rest are refused at once.
 */
export const searchSlots = (concurrency: number) =>
  new Slots({ size: concurrency, queue: 8 * concurrency, perCaller: 4, maxWaitMs: 1_000 });

/**
 * Runs a request's `work` in `slots` under its caller (account, else address). A refusal is a
 * `429 rate_limit_exceeded` with `Retry-After: 1`: `what` names the work in its message.
 */
export async function inSlots<T>(
  slots: Slots,
  locals: Record<string, unknown>,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await slots.run(callerOf(locals), work);
  } catch (err) {
    if (!(err instanceof SlotsFull)) throw err;
    throw new RateLimitedError(
      err.reason === 'caller'
        ? `too many of your ${what} are running at once; retry when one has answered`
        : `too many ${what} are running; retry in a second`,
      1,
    );
  }
}
