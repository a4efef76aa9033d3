import { toTimestamp } from '@community/contracts';
import type { Logger } from '@community/logging';
import { PendingBatch } from '@community/service-runtime';
import type { UsersClient } from './users-client';

/**
 * Remembers which keys were used and reports them to users-service in one call every few seconds,
 * so last-used times stay right although most requests never reach users-service.
 */
export class UsageReporter extends PendingBatch<number, number> {
  constructor(users: UsersClient, logger: Logger, intervalMs = 10_000) {
    super({
      merge: (a, b) => (b > a ? b : a),
      write: async (batch) => {
        const used = [...batch].map(([key_id, at]) => ({ key_id, at: toTimestamp(new Date(at)) }));
        const res = await users.post('/internal/keys/usage', { used });
        if (res.status !== 200) throw new Error(`answered ${res.status}`);
      },
      intervalMs,
      logger,
      what: 'key usage report',
    });
  }

  /** Notes a use of the key now (a number: no Date made per request). */
  used(keyId: number): void {
    this.add(keyId, Date.now());
  }
}
