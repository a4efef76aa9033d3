import type { PublicEvent } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import type { EndpointRow } from './rows';

type Db = Sql | Tx;

export async function insertEndpoint(
  tx: Tx,
  endpoint: { userId: number; url: string; events: PublicEvent[]; description: string; secret: string },
): Promise<EndpointRow> {
  const [row] = await tx<EndpointRow[]>`
    insert into endpoints (user_id, url, events, description, secret)
    values (${endpoint.userId}, ${endpoint.url}, ${endpoint.events}::text[], ${endpoint.description}, ${endpoint.secret})
    returning *`;
  return row!;
}

/** A live endpoint of this user; another user's is as good as absent. */
export async function findEndpoint(db: Db, userId: number, id: number, opts: { forUpdate?: boolean } = {}) {
  const [row] = opts.forUpdate
    ? await db<
        EndpointRow[]
      >`select * from endpoints where id = ${id} and user_id = ${userId} and deleted_at is null for update`
    : await db<
        EndpointRow[]
      >`select * from endpoints where id = ${id} and user_id = ${userId} and deleted_at is null`;
  return row ?? null;
}

/**
 * A user's live endpoints, counted under a lock of that user's creations (until the transaction
 * ends), so two at once cannot both pass the limit.
 */
export async function countEndpointsLocked(tx: Db, userId: number): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtext('webhooks:' || ${userId}))`;
  const [row] = await tx<
    { n: number }[]
  >`select count(*)::int as n from endpoints where user_id = ${userId} and deleted_at is null`;
  return row?.n ?? 0;
}

export async function listEndpoints(db: Db, userId: number, limit: number, offset: number) {
  const [rows, [count]] = await Promise.all([
    db<EndpointRow[]>`
      select * from endpoints where user_id = ${userId} and deleted_at is null order by id limit ${limit} offset ${offset}`,
    db<
      { total: number }[]
    >`select count(*)::int as total from endpoints where user_id = ${userId} and deleted_at is null`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

export async function updateEndpoint(
  tx: Tx,
  id: number,
  changes: Partial<{ url: string; events: PublicEvent[]; description: string; enabled: boolean }>,
): Promise<EndpointRow> {
  const [row] = await tx<EndpointRow[]>`
    update endpoints set
      url = coalesce(${changes.url ?? null}, url),
      description = coalesce(${changes.description ?? null}, description),
      events = coalesce(${changes.events ?? null}::text[], events),
      enabled = coalesce(${changes.enabled ?? null}, enabled),
      -- turning an endpoint back on forgets why it was off and how long it failed
      disabled_reason = case when ${changes.enabled === true} then null else disabled_reason end,
      failing_since = case when ${changes.enabled === true} then null else failing_since end,
      -- a new URL is a new receiver: it starts in the slow lane, as a new endpoint does
      fast_lane = case when ${changes.url ?? null}::text <> url then false else fast_lane end,
      updated_at = now()
    where id = ${id}
    returning *`;
  return row!;
}

export async function softDeleteEndpoint(tx: Tx, id: number): Promise<void> {
  await tx`update endpoints set deleted_at = now(), enabled = false where id = ${id}`;
}

export async function rotateSecret(
  tx: Tx,
  id: number,
  secret: string,
  overlapSeconds: number,
): Promise<EndpointRow> {
  const [row] = await tx<EndpointRow[]>`
    update endpoints set previous_secret = secret, secret = ${secret}, secrets_key_id = null,
      previous_secret_expires_at = now() + make_interval(secs => ${overlapSeconds}), updated_at = now()
    where id = ${id} returning *`;
  return row!;
}

/** The endpoint's lane after a test ping, written only when it changes. */
export async function setLane(db: Db, id: number, fastLane: boolean): Promise<void> {
  await db`update endpoints set fast_lane = ${fastLane} where id = ${id} and fast_lane <> ${fastLane}`;
}

export async function disableEndpoint(db: Db, id: number, reason: string): Promise<void> {
  await db`update endpoints set enabled = false, disabled_reason = ${reason}, updated_at = now() where id = ${id}`;
}

/** Endpoints (deleted ones too) whose secret or previous secret is still stored as written. */
export async function endpointsWithOpenSecrets(db: Db, sealedPrefix: string) {
  return db<Pick<EndpointRow, 'id' | 'secret' | 'previousSecret'>[]>`
    select id, secret, previous_secret from endpoints
    where not starts_with(secret, ${sealedPrefix}) or not starts_with(previous_secret, ${sealedPrefix})`;
}

/** Replaces one endpoint's secrets, only if they are still the ones read (another replica may have sealed them). */
export async function replaceSecrets(
  db: Db,
  row: Pick<EndpointRow, 'id' | 'secret' | 'previousSecret'>,
  sealed: { secret: string; previousSecret: string | null },
): Promise<void> {
  await db`
    update endpoints set secret = ${sealed.secret}, previous_secret = ${sealed.previousSecret},
      secrets_key_id = null
    where id = ${row.id} and secret = ${row.secret} and previous_secret is not distinct from ${row.previousSecret}`;
}

/** One sealed secret, to check at start that SECRETS_KEY opens what is stored. */
export async function anySealedSecret(db: Db, sealedPrefix: string): Promise<string | null> {
  const [row] = await db<{ secret: string }[]>`
    select secret from endpoints where starts_with(secret, ${sealedPrefix}) order by id desc limit 1`;
  return row?.secret ?? null;
}
