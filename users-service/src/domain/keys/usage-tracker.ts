import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { recordKeyUsage } from '../../db/keys.repository';

/**
 * Collects "key K was used at T" in memory and writes them in one statement every few seconds, so a
 * busy key costs one write per flush instead of one per request. At most one flush interval of
 * last-used times is lost if the process dies.
 */
export class UsageTracker {
  private pending = new Map<number, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly intervalMs = 5_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  touch(keyId: number, at = new Date()): void {
    const known = this.pending.get(keyId);
    if (!known || known < at) this.pending.set(keyId, at);
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending].map(([keyId, at]) => ({ keyId, at }));
      this.pending = new Map();
      try {
        await recordKeyUsage(this.sql, batch);
      } catch (err) {
        // Put them back; a later flush retries. Newer times win on merge.
        for (const { keyId, at } of batch) this.touch(keyId, at);
        this.logger.warn(
          { err: { message: (err as Error).message }, keys: batch.length },
          'key usage not recorded yet',
        );
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
