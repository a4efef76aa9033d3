import type { Sql, Tx } from '@community/db';
import type { DeliveryRow, EndpointRow } from './rows';

type Db = Sql | Tx;

/**
 * One delivery per enabled endpoint subscribed to the event, written in the consumer's transaction,
 * so the message is acked only once every delivery is safely stored. A replayed event adds nothing.
 * Every endpoint gets the event's one webhook-id (`messageId`).
 */
export async function fanOut(
  tx: Tx,
  event: { id: string; messageId: string; type: string; body: string; traceparent?: string },
): Promise<number> {
  const rows = await tx`
    insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at, traceparent)
    select e.id, ${event.id}, ${event.type}, ${event.body}, ${event.messageId}, now(), ${event.traceparent ?? null}
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

/** An endpoint's deliveries after the delivery `afterId`, newest first: a keyset read by id. */
export async function deliveriesAfter(
  db: Db,
  endpointId: number,
  status: string | undefined,
  afterId: number,
  limit: number,
): Promise<DeliveryRow[]> {
  const filter = status ? db`and status = ${status}` : db``;
  return db<DeliveryRow[]>`
    select * from deliveries where endpoint_id = ${endpointId} ${filter} and id < ${afterId}
    order by id desc limit ${limit}`;
}

export async function findDelivery(db: Db, endpointId: number, id: number): Promise<DeliveryRow | null> {
  const [row] = await db<
    DeliveryRow[]
  >`select * from deliveries where id = ${id} and endpoint_id = ${endpointId}`;
  return row ?? null;
}

/**
 * Starts a new round of attempts now; the webhook-id stays the same. A redelivery is no longer part
 * of the replay that queued it, so it does not keep that replay running.
 */
export async function requeue(tx: Tx, id: number): Promise<DeliveryRow> {
  const [row] = await tx<DeliveryRow[]>`
    update deliveries set status = 'pending', round_start = attempts, next_attempt_at = now(), updated_at = now(),
      replay_id = null
    where id = ${id} returning *`;
  return row!;
}

export type ClaimedDelivery = DeliveryRow &
  Pick<
    EndpointRow,
    'userId' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'failingSince' | 'fastLane'
  >;

export interface ClaimLimits {
  limit: number;
  /** Attempts one endpoint may have in flight, across every dispatcher. */
  perEndpoint: number;
  /** Attempts all endpoints of one user together may have in flight, across every dispatcher. */
  perUser: number;
  /** Attempts one slow-lane endpoint may have in flight, across every dispatcher (instead of `perEndpoint`). */
  perSlowEndpoint: number;
  /** Of `limit`, how many may go to slow-lane endpoints: what this dispatcher's slow-lane slots leave. */
  slowLimit: number;
  leaseSeconds: number;
}

/** Serialises claims across replicas: each sees the leases the one before it took. */
const CLAIM_LOCK = 'webhooks.claim';

/**
 * Takes due deliveries for one attempt, leasing each: its due time and `leased_until` move a lease
 * ahead, so another dispatcher (or this one after a crash) picks it up again only if the attempt is
 * never recorded. Runs in the caller's transaction, under a lock every dispatcher takes, so the
 * leases it counts are all of them (issue 23: two replicas allowed 20 attempts at one endpoint when
 * each counted its own).
 *
 * Only live endpoints are looked at, before any limit, and each gives at most its free slots
 * (`perEndpoint` minus its leases), its oldest first. The picks are taken round-robin — every
 * endpoint's first, then every endpoint's second — and no user gets more than its free share
 * (`perUser` minus its leases), so one account's backlog can never hold the slots another account's
 * deliveries need.
 *
 * A slow-lane endpoint (DESIGN.md §21) has `perSlowEndpoint` slots instead of `perEndpoint`, and the
 * slow lane together gets at most `slowLimit` of this claim: hanging receivers never take the slots
 * of endpoints that answer.
 */
export async function claimDue(tx: Tx, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const { leaseSeconds } = limits;
  await tx`select pg_advisory_xact_lock(hashtext(${CLAIM_LOCK}))`;
  return tx<ClaimedDelivery[]>`
    with ${freeSlots(tx, limits)},
    ${fairPicks(tx, limits)},
    -- Rows another transaction holds (a DELETE cancelling them) are skipped, not waited for: a claim
    -- that waited could deadlock with it, each holding rows the other needs.
    locked as (
      select d.id from deliveries d
      -- an array, not a join: with stale statistics the planner re-ran "picked" once per pending row
      where d.id = any(array(select id from picked))
      for update of d skip locked
    )
    update deliveries d
    set next_attempt_at = now() + make_interval(secs => ${leaseSeconds}),
        leased_until = now() + make_interval(secs => ${leaseSeconds})
    from endpoints e
    where d.id = any(array(select id from locked)) and e.id = d.endpoint_id
      -- re-checked under the row lock: a delete that got here first wins
      and d.status = 'pending' and d.next_attempt_at <= now() and e.enabled and e.deleted_at is null
    returning d.*, e.user_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.failing_since,
      e.fast_lane`;
}

/**
 * The claim's first CTEs: `held` (each endpoint's live leases), `slots` (each live endpoint's free
 * slots, by its lane) and `user_held` (each user's live leases).
 */
function freeSlots(tx: Tx, { perEndpoint, perSlowEndpoint }: ClaimLimits) {
  return tx`
    held as (
      select d.endpoint_id, count(*)::int as n from deliveries d
      where d.leased_until is not null and d.leased_until > now()
      group by d.endpoint_id
    ),
    slots as (
      select e.id as endpoint_id, e.user_id, e.fast_lane,
             case when e.fast_lane then ${perEndpoint}::int else ${perSlowEndpoint}::int end - coalesce(h.n, 0) as free
      from endpoints e
      left join held h on h.endpoint_id = e.id
      where e.enabled and e.deleted_at is null
    ),
    user_held as (
      select e.user_id, sum(h.n)::int as n from held h join endpoints e on e.id = h.endpoint_id
      group by e.user_id
    )`;
}

/**
 * The claim's next CTEs, ending in `picked`: each endpoint's oldest due deliveries up to its free
 * slots, taken round-robin within each user's free share and the slow lane's `slowLimit`.
 */
function fairPicks(tx: Tx, { perUser, slowLimit, limit }: ClaimLimits) {
  return tx`
    candidates as (
      select p.id, p.rn, p.next_attempt_at, s.user_id, s.fast_lane from slots s
      cross join lateral (
        select d.id, d.next_attempt_at,
               row_number() over (order by d.next_attempt_at, d.id) as rn
        from deliveries d
        where d.endpoint_id = s.endpoint_id and d.status = 'pending' and d.next_attempt_at <= now()
        order by d.next_attempt_at, d.id
        limit greatest(s.free, 0)
      ) p
    ),
    fair as (
      select c.id, c.rn, c.next_attempt_at, c.fast_lane,
             row_number() over (partition by c.user_id order by c.rn, c.next_attempt_at, c.id) as user_rn,
             ${perUser} - coalesce(u.n, 0) as user_free
      from candidates c
      left join user_held u on u.user_id = c.user_id
    ),
    allowed as (
      select id, rn, next_attempt_at, fast_lane,
             row_number() over (partition by fast_lane order by rn, next_attempt_at, id) as lane_rn
      from fair where user_rn <= user_free
    ),
    picked as (
      select id from allowed where fast_lane or lane_rn <= ${slowLimit}
      order by rn, next_attempt_at, id
      limit ${limit}
    )`;
}

/** An endpoint that is deleted or disabled will never be sent its pending deliveries: they end. */
export async function cancelPending(db: Db, endpointId: number): Promise<number> {
  // Locked in id order, whatever the plan: two writers of many rows wait for each other, never deadlock.
  const rows = await db`
    with doomed as (
      select id from deliveries where endpoint_id = ${endpointId} and status = 'pending'
      order by id for update
    )
    update deliveries d set status = 'cancelled', next_attempt_at = null, updated_at = now()
    from doomed where d.id = doomed.id
    returning d.id`;
  return rows.length;
}

export interface AttemptRecord {
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: Date | null;
}

type Claim = { id: number; attempts: number };
/**
 * Records the attempt of a claim (its lease, the attempts as claimed): once, however often it is
 * written. One in flight when its endpoint went away is recorded, but never scheduled again.
 */
export async function recordAttempt(db: Db, claimed: Claim, record: AttemptRecord): Promise<void> {
  const retry = record.status === 'pending';
  await db`
    update deliveries set attempts = attempts + 1,
      status = case when status = 'cancelled' and ${retry} then 'cancelled' else ${record.status} end,
      next_attempt_at = case when status = 'cancelled' and ${retry} then null else ${record.nextAttemptAt}::timestamptz end,
      response_status = ${record.responseStatus}, duration_ms = ${record.durationMs}, last_error = ${record.error},
      leased_until = null, updated_at = now()
    where id = ${claimed.id} and attempts = ${claimed.attempts} and leased_until is not null`;
}

/**
 * The endpoint's health after an attempt: a success clears the failing streak, a failure starts one;
 * and its lane, which the attempt's answering in time decides. Written only when something changes.
 */
export async function markEndpointOutcome(
  db: Db,
  endpointId: number,
  outcome: { succeeded: boolean; fastLane: boolean },
): Promise<Date | null> {
  const { fastLane } = outcome;
  const [row] = outcome.succeeded
    ? await db<{ failingSince: Date | null }[]>`
        update endpoints set failing_since = null, fast_lane = ${fastLane}
        where id = ${endpointId} and (failing_since is not null or fast_lane <> ${fastLane})
        returning failing_since`
    : await db<{ failingSince: Date | null }[]>`
        update endpoints set failing_since = coalesce(failing_since, now()), fast_lane = ${fastLane}
        where id = ${endpointId} returning failing_since`;
  return row?.failingSince ?? null;
}

export async function queueStats(sql: Sql): Promise<{ pending: number; oldestDueSeconds: number }> {
  const [row] = await sql<{ pending: number; oldestDueSeconds: number | null }[]>`
    select count(*)::int as pending,
           extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest_due_seconds
    from deliveries where status = 'pending'`;
  return { pending: row?.pending ?? 0, oldestDueSeconds: Math.max(0, row?.oldestDueSeconds ?? 0) };
}

/**
 * Milliseconds until the earliest pending delivery of a live endpoint is due (≤ 0: one is due now), or
 * null when none is pending. A claimed delivery counts too: its lease's end is when it is due again.
 */
export async function nextDueInMs(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ ms: number }[]>`
    select (extract(epoch from d.next_attempt_at - clock_timestamp()) * 1000)::float8 as ms
    from deliveries d join endpoints e on e.id = d.endpoint_id
    where d.status = 'pending' and e.enabled and e.deleted_at is null
    order by d.next_attempt_at
    limit 1`;
  return row?.ms ?? null;
}

/** Records a test ping's one attempt in the delivery log: done, never retried. */
export async function recordPing(
  db: Db,
  ping: {
    endpointId: number;
    eventId: string;
    messageId: string;
    body: string;
    ok: boolean;
    status: number | null;
    durationMs: number;
    error: string | null;
  },
): Promise<void> {
  await db`
    insert into deliveries
      (endpoint_id, event_id, event, body, message_id, status, attempts, response_status, duration_ms, last_error, next_attempt_at)
    values (${ping.endpointId}, ${ping.eventId}, 'ping', ${ping.body}, ${ping.messageId},
            ${ping.ok ? 'succeeded' : 'failed'}, 1, ${ping.status}, ${ping.durationMs}, ${ping.error}, null)`;
}
