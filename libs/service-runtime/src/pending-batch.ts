import type { Logger } from '@community/logging';

export interface PendingBatchOptions<K, V> {
  /** Combines two values of one key: a sum, the later time, … */
  merge: (current: V, next: V) => V;
  /** Writes one batch; a throw puts the batch back for the next flush. */
  write: (batch: Map<K, V>) => Promise<void>;
  intervalMs: number;
  logger: Logger;
  /** What a failed write leaves waiting, for the log line ("views", "key usage"). */
  what: string;
}

/**
 * Values collected in memory per key and written in one go every interval, so a hot path costs a
 * map update instead of a write. Flushes run one at a time; a failed one merges its batch back.
 * A process that dies loses at most one interval.
 */
export class PendingBatch<K, V> {
  private pending = new Map<K, V>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** The batch a write has taken and not finished: out of memory, maybe not in the store yet. */
  protected writing: ReadonlyMap<K, V> | null = null;
  /** Counts the writes that finished, either way: a read that saw it change may have missed one. */
  protected finished = 0;

  constructor(private readonly opts: PendingBatchOptions<K, V>) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** What is pending for `key`, not written yet (undefined: nothing). */
  peek(key: K): V | undefined {
    return this.pending.get(key);
  }

  /** Adds a value for `key`; returns what is now waiting for it. */
  add(key: K, value: V): V {
    const known = this.pending.get(key);
    const merged = known === undefined ? value : this.opts.merge(known, value);
    this.pending.set(key, merged);
    return merged;
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      this.writing = batch;
      try {
        await this.opts.write(batch);
      } catch (err) {
        for (const [key, value] of batch) this.add(key, value);
        this.opts.logger.warn(
          { err: { message: (err as Error).message }, keys: batch.size },
          `${this.opts.what} not written yet`,
        );
      } finally {
        this.writing = null;
        this.finished++;
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
