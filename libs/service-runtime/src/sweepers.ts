import { sweepIdempotencyKeys, type Sql } from '@community/db';
import { prunePublishedOutbox } from '@community/events';
import type { Logger } from '@community/logging';

const INTERVAL_MS = 10 * 60_000;
/** Batches per sweep: a backlog is worked off over several sweeps, never in one long burst. */
const MAX_BATCHES = 20;

/** Deletes up to `batch` rows that outlived their retention; answers how many. */
type SweepBatch = (sql: Sql, batch: number) => Promise<number>;

/** Deletes what a service keeps only for a while, every ten minutes, in bounded batches. */
export class BatchSweeper {
  private timer?: NodeJS.Timeout;

  constructor(
    /** What is swept, for the log. */
    private readonly what: string,
    private readonly sweepBatch: SweepBatch,
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly intervalMs = INTERVAL_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sweep; returns how many rows it deleted. Failures are logged: the next sweep retries. */
  async sweep(batch = 1000): Promise<number> {
    let deleted = 0;
    try {
      for (let i = 0; i < MAX_BATCHES; i++) {
        const count = await this.sweepBatch(this.sql, batch);
        deleted += count;
        if (count < batch) break;
      }
    } catch (err) {
      this.logger.warn({ err }, `${this.what} sweep failed`);
    }
    return deleted;
  }
}

/** Expired idempotency keys (DESIGN.md §10). */
export class IdempotencyKeySweeper extends BatchSweeper {
  constructor(sql: Sql, logger: Logger, intervalMs?: number) {
    super('idempotency key', sweepIdempotencyKeys, sql, logger, intervalMs);
  }
}

/** Published outbox rows past their retention: their payloads may name a member (DESIGN.md §20). */
export class OutboxSweeper extends BatchSweeper {
  constructor(sql: Sql, logger: Logger, intervalMs?: number) {
    super('outbox', (db, batch) => prunePublishedOutbox(db, batch), sql, logger, intervalMs);
  }
}
