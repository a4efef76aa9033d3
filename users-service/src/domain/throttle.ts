import { RateLimitedError } from '@community/contracts';
import { inTransaction, type Sql, type Tx } from '@community/db';
import { countRecent, lockBucket, recordEvent } from '../db/throttle.repository';

export interface Limit {
  bucket: string;
  max: number;
  windowSeconds: number;
  message: string;
}

/** Refuses with 429 once `bucket` saw `max` events within the window. */
export async function assertUnderLimit(db: Sql | Tx, limit: Limit): Promise<void> {
  const { count, retryAfterSeconds } = await countRecent(db, limit.bucket, limit.windowSeconds);
  if (count >= limit.max) throw new RateLimitedError(limit.message, retryAfterSeconds);
}

/**
 * Decides and records in one step: under the bucket's lock, counts the window and records one more
 * event, or refuses with 429. Parallel callers cannot all pass on the same count. Called in the
 * transaction of the work it limits, the event commits (or rolls back) with it.
 */
export async function takeFromLimit(tx: Tx, limit: Limit): Promise<void> {
  await lockBucket(tx, limit.bucket);
  await assertUnderLimit(tx, limit);
  await recordEvent(tx, limit.bucket);
}

/** `takeFromLimit` in a transaction of its own: the event stays recorded whatever happens next. */
export const reserveFromLimit = (sql: Sql, limit: Limit) =>
  inTransaction(sql, (tx) => takeFromLimit(tx, limit));
