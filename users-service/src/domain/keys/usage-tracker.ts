import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { PendingBatch } from '@community/service-runtime';
import { recordKeyUsage } from '../../db/keys.repository';

/**
 * Collects "key K was used at T" in memory and writes them in one statement every few seconds, so a
 * busy key costs one write per flush instead of one per request. At most one flush interval of
 * last-used times is lost if the process dies.
 */
export class UsageTracker extends PendingBatch<number, Date> {
  constructor(sql: Sql, logger: Logger, intervalMs = 5_000) {
    super({
      merge: (a, b) => (b > a ? b : a),
      write: (batch) =>
        recordKeyUsage(
          sql,
          [...batch].map(([keyId, at]) => ({ keyId, at })),
        ),
      intervalMs,
      logger,
      what: 'key usage',
    });
  }

  touch(keyId: number, at = new Date()): void {
    this.add(keyId, at);
  }
}
