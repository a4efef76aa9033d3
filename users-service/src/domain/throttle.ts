import { RateLimitedError } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import { countRecent } from '../db/throttle.repository';

/** Refuses with 429 once `bucket` saw `max` events within the window. */
export async function assertUnderLimit(
  db: Sql | Tx,
  bucket: string,
  max: number,
  windowSeconds: number,
  message: string,
): Promise<void> {
  const { count, retryAfterSeconds } = await countRecent(db, bucket, windowSeconds);
  if (count >= max) throw new RateLimitedError(message, retryAfterSeconds);
}
