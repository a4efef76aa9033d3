import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

/** Events of `bucket` within the last `windowSeconds`, and when the oldest of them leaves the window. */
export async function countRecent(
  db: Db,
  bucket: string,
  windowSeconds: number,
): Promise<{ count: number; retryAfterSeconds: number }> {
  const [row] = await db<{ count: number; oldest: Date | null }[]>`
    select count(*)::int as count, min(at) as oldest from throttle_events
    where bucket = ${bucket} and at > now() - make_interval(secs => ${windowSeconds})`;
  const oldest = row?.oldest?.getTime() ?? Date.now();
  return {
    count: row?.count ?? 0,
    retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowSeconds * 1000 - Date.now()) / 1000)),
  };
}

/** Serialises every decision about `bucket` until the transaction ends. */
export async function lockBucket(tx: Tx, bucket: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${`throttle:${bucket}`}))`;
}

export async function recordEvent(db: Db, bucket: string): Promise<void> {
  await db`insert into throttle_events (bucket) values (${bucket})`;
}

export async function clearBucket(db: Db, bucket: string): Promise<void> {
  await db`delete from throttle_events where bucket = ${bucket}`;
}

export async function pruneThrottle(db: Db, olderThanSeconds: number): Promise<void> {
  await db`delete from throttle_events where at < now() - make_interval(secs => ${olderThanSeconds})`;
}
