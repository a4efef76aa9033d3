import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface EventRow {
  seq: number;
  id: string;
  event: string;
  body: string;
  createdAt: Date;
}

/** What a window of the log is asked for: its bounds and the event types wanted. */
export interface EventWindow {
  since: Date;
  until: Date;
  types: string[];
}

const RECENT = (db: Db, days: number) => db`created_at > now() - make_interval(days => ${days})`;

/**
 * Logs a public event once. The advisory lock, held to the commit, makes the log's order the order
 * rows become visible in: a reader walking by `seq` never passes a row that commits later.
 */
export async function logEvent(
  tx: Tx,
  event: { id: string; eventId: string; type: string; body: string; at: string },
): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext('webhooks:event-log'))`;
  await tx`
    insert into events (id, event_id, event, body, created_at)
    values (${event.id}, ${event.eventId}, ${event.type}, ${event.body}, ${event.at})
    on conflict (event_id) do nothing`;
}

/** Where the event `id` stands in the log; null when it is not there (never, or expired). */
export async function seqOf(db: Db, id: string): Promise<number | null> {
  const [row] = await db<{ seq: number }[]>`select seq from events where id = ${id}`;
  return row?.seq ?? null;
}

const typed = (db: Db, types: string[] | undefined) =>
  types === undefined ? db`` : db`and event = any(${types}::text[])`;

/** A page of the log of the last `days` days, oldest first. */
export async function listEvents(
  db: Db,
  filter: { types?: string[]; days: number },
  limit: number,
  offset: number,
): Promise<{ rows: EventRow[]; total: number }> {
  const where = db`${RECENT(db, filter.days)} ${typed(db, filter.types)}`;
  const [rows, [count]] = await Promise.all([
    db<
      EventRow[]
    >`select seq, id, event, body, created_at from events where ${where} order by seq limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from events where ${where}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/** The events logged after the one at `seq`, oldest first: a keyset read. */
export async function eventsAfter(
  db: Db,
  filter: { types?: string[]; days: number },
  seq: number,
  limit: number,
): Promise<EventRow[]> {
  return db<EventRow[]>`
    select seq, id, event, body, created_at from events
    where seq > ${seq} and ${RECENT(db, filter.days)} ${typed(db, filter.types)}
    order by seq limit ${limit}`;
}

/**
 * How many events of the window there are, counted up to `cap` + 1 when given, and the place in the
 * log of the last one counted (null when none).
 */
export async function countWindow(
  db: Db,
  window: EventWindow,
  cap?: number,
): Promise<{ count: number; lastSeq: number | null }> {
  const [row] = await db<{ count: number; lastSeq: number | null }[]>`
    select count(*)::int as count, max(seq) as last_seq from (
      select seq from events
      where created_at >= ${window.since} and created_at <= ${window.until} and event = any(${window.types}::text[])
      ${cap === undefined ? db`` : db`limit ${cap + 1}`}) m`;
  return { count: row?.count ?? 0, lastSeq: row?.lastSeq ?? null };
}

/**
 * Queues the events of the window up to `lastSeq` for the endpoint again under their original
 * webhook-ids, tagged with the replay: a delivery it had is started afresh, one it never had
 * (subscribed later) is made. Events logged after the count (a later `seq`: the log's order is the
 * order rows become visible in) are left out, so exactly what was counted is queued. Answers how many.
 */
export async function queueReplay(
  tx: Tx,
  endpointId: number,
  window: EventWindow,
  replay: { id: number; lastSeq: number },
): Promise<number> {
  const rows = await tx`
    insert into deliveries as d (endpoint_id, event_id, event, body, message_id, next_attempt_at, replay_id)
    select ${endpointId}, e.event_id, e.event, e.body, e.id, now(), ${replay.id}
    from events e
    where e.created_at >= ${window.since} and e.created_at <= ${window.until} and e.event = any(${window.types}::text[])
      and e.seq <= ${replay.lastSeq}
    order by e.seq
    on conflict (event_id, endpoint_id) do update
      set status = 'pending', round_start = d.attempts, next_attempt_at = now(), updated_at = now(),
          replay_id = excluded.replay_id
    returning d.id`;
  return rows.length;
}

/** Deletes logged events and deliveries older than `days` days, in bounded batches. */
export async function pruneOlderThan(
  db: Db,
  days: number,
  batch = 5_000,
): Promise<{ events: number; deliveries: number }> {
  const prune = async (table: 'events' | 'deliveries', key: 'seq' | 'id') => {
    let removed = 0;
    for (;;) {
      const gone = await db`
        delete from ${db(table)} where ${db(key)} in (
          select ${db(key)} from ${db(table)} where created_at < now() - make_interval(days => ${days}) limit ${batch})
        returning 1`;
      removed += gone.length;
      if (gone.length < batch) return removed;
    }
  };
  return { deliveries: await prune('deliveries', 'id'), events: await prune('events', 'seq') };
}
