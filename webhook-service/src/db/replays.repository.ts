import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

/** A replay of the account's recent past, as the allowance rules read it. */
export interface PastReplay {
  endpointId: number;
  queued: number;
  /** Seconds since it was made, by the database's clock (the one every replica shares). */
  ageSeconds: number;
}

/**
 * Serialises the replays of one account until the transaction ends, so each sees every replay
 * committed before it: deciding and recording a replay is one step, however many arrive at once.
 */
export async function lockAccountReplays(tx: Tx, userId: number): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext('webhooks:replay:' || ${userId}))`;
}

/** A replay of this endpoint is running: a delivery it queued is still pending. */
export async function isReplaying(db: Db, endpointId: number): Promise<boolean> {
  const [row] = await db<{ replaying: boolean }[]>`
    select exists (
      select 1 from deliveries where endpoint_id = ${endpointId} and status = 'pending' and replay_id is not null
    ) as replaying`;
  return row?.replaying ?? false;
}

/** The account's replays of the last `seconds`, oldest first. */
export async function replaysWithin(db: Db, userId: number, seconds: number): Promise<PastReplay[]> {
  return db<PastReplay[]>`
    select endpoint_id, queued, extract(epoch from now() - created_at)::float8 as age_seconds
    from replays
    where user_id = ${userId} and created_at > now() - make_interval(secs => ${seconds})
    order by created_at, id`;
}

/** Records a replay about to queue `queued` deliveries; its id tags them. */
export async function recordReplay(
  tx: Tx,
  replay: { endpointId: number; userId: number; queued: number },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into replays (endpoint_id, user_id, queued)
    values (${replay.endpointId}, ${replay.userId}, ${replay.queued})
    returning id`;
  return row!.id;
}

/** Deletes replays older than `days` days. */
export async function pruneReplays(db: Db, days: number): Promise<number> {
  const gone =
    await db`delete from replays where created_at < now() - make_interval(days => ${days}) returning 1`;
  return gone.length;
}
