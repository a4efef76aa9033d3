import { sweepIdempotencyKeys, type Sql } from '@community/db';
import type { Logger } from '@community/logging';

const INTERVAL_MS = 10 * 60_000;
/** Batches per sweep: a backlog is worked off over several sweeps, never in one long burst. */
const MAX_BATCHES = 20;

/** Deletes expired idempotency keys (DESIGN.md §10) every ten minutes, in bounded batches. */
export class IdempotencyKeySweeper {
  private timer?: NodeJS.Timeout;

  constructor(
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

  /** One sweep; returns how many keys it deleted. Failures are logged: the next sweep retries. */
  async sweep(batch = 1000): Promise<number> {
    let deleted = 0;
    try {
      for (let i = 0; i < MAX_BATCHES; i++) {
        const count = await sweepIdempotencyKeys(this.sql, batch);
        deleted += count;
        if (count < batch) break;
      }
    } catch (err) {
      this.logger.warn({ err }, 'idempotency key sweep failed');
    }
    return deleted;
  }
}
