import type { Sql, Tx } from '@community/db';
import type { DeliveryRow, EndpointRow } from './rows';

type Db = Sql | Tx;

/**
 * One delivery per enabled endpoint subscribed to the event, written in the consumer's transaction,
 * so the message is acked only once every delivery is safely stored. A replayed event adds nothing.
 */
export async function fanOut(tx: Tx, event: { id: string; type: string; body: string }): Promise<number> {
  const rows = await tx`
    insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at)
    select e.id, ${event.id}, ${event.type}, ${event.body}, 'msg_' || replace(gen_random_uuid()::text, '-', ''), now()
    from endpoints e
    where e.deleted_at is null and e.enabled and e.events @> array[${event.type}]::text[]
    on conflict (event_id, endpoint_id) do nothing
    returning id`;
  return rows.length;
}

export async function listDeliveries(
  db: Db,
  endpointId: number,
  status: string | undefined,
  limit: number,
  offset: number,
) {
  const filter = status ? db`and status = ${status}` : db``;
  const [rows, [count]] = await Promise.all([
    db<DeliveryRow[]>`
      select * from deliveries where endpoint_id = ${endpointId} ${filter} order by id desc limit ${limit} offset ${offset}`,
    db<
      { total: number }[]
    >`select count(*)::int as total from deliveries where endpoint_id = ${endpointId} ${filter}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

export async function findDelivery(db: Db, endpointId: number, id: number): Promise<DeliveryRow | null> {
  const [row] = await db<
    DeliveryRow[]
  >`select * from deliveries where id = ${id} and endpoint_id = ${endpointId}`;
  return row ?? null;
}

/** Starts a new round of attempts now; the webhook-id stays the same. */
export async function requeue(tx: Tx, id: number): Promise<DeliveryRow> {
  const [row] = await tx<DeliveryRow[]>`
    update deliveries set status = 'pending', round_start = attempts, next_attempt_at = now(), updated_at = now()
    where id = ${id} returning *`;
  return row!;
}

export type ClaimedDelivery = DeliveryRow &
  Pick<EndpointRow, 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'failingSince'>;

/**
 * Takes due deliveries for one attempt by pushing their due time a lease ahead: another dispatcher
 * (or this one after a crash) picks them up again only if the attempt is never recorded. An endpoint
 * gets only the slots it has free in this process (`perEndpoint` minus its attempts in flight).
 */
export async function claimDue(
  sql: Sql,
  {
    limit,
    perEndpoint,
    inFlight,
    leaseSeconds,
  }: { limit: number; perEndpoint: number; inFlight: Map<number, number>; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  const busy = [...inFlight].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
  return sql<ClaimedDelivery[]>`
    with due as (
      select d.id, d.endpoint_id, d.next_attempt_at from deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now() and d.endpoint_id <> all(${busy}::int[])
      order by d.next_attempt_at
      limit 1000
    ),
    picked as (
      select id from (
        select due.id, due.endpoint_id, row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.id) as rn
        from due join endpoints e on e.id = due.endpoint_id and e.enabled and e.deleted_at is null
      ) ranked
      left join unnest(${[...inFlight.keys()]}::int[], ${[...inFlight.values()]}::int[]) as f(endpoint_id, n)
        on f.endpoint_id = ranked.endpoint_id
      -- only as many as the endpoint has free slots in this process
      where rn <= ${perEndpoint} - coalesce(f.n, 0)
      limit ${limit}
    )
    update deliveries d set next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
    from endpoints e
    -- an array, not a join: with stale statistics the planner re-ran "picked" once per pending row
    where d.id = any(array(select id from picked)) and e.id = d.endpoint_id
      -- re-checked under the row lock: a concurrent claimer that got here first wins
      and d.status = 'pending' and d.next_attempt_at <= now()
    returning d.*, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.failing_since`;
}

export interface AttemptRecord {
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: Date | null;
}

export async function recordAttempt(db: Db, id: number, record: AttemptRecord): Promise<void> {
  await db`
    update deliveries set attempts = attempts + 1, status = ${record.status}, response_status = ${record.responseStatus},
      duration_ms = ${record.durationMs}, last_error = ${record.error}, next_attempt_at = ${record.nextAttemptAt},
      updated_at = now()
    where id = ${id}`;
}

/** The endpoint's health after an attempt: a success clears the failing streak, a failure starts one. */
export async function markEndpointOutcome(
  db: Db,
  endpointId: number,
  succeeded: boolean,
): Promise<Date | null> {
  const [row] = succeeded
    ? await db<{ failingSince: Date | null }[]>`
        update endpoints set failing_since = null where id = ${endpointId} and failing_since is not null returning failing_since`
    : await db<{ failingSince: Date | null }[]>`
        update endpoints set failing_since = coalesce(failing_since, now()) where id = ${endpointId} returning failing_since`;
  return row?.failingSince ?? null;
}

export async function queueStats(sql: Sql): Promise<{ pending: number; oldestDueSeconds: number }> {
  const [row] = await sql<{ pending: number; oldestDueSeconds: number | null }[]>`
    select count(*)::int as pending,
           extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest_due_seconds
    from deliveries where status = 'pending'`;
  return { pending: row?.pending ?? 0, oldestDueSeconds: Math.max(0, row?.oldestDueSeconds ?? 0) };
}
