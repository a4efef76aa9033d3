import type { Plan, Role, Scope } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import type { ApiKeyRow } from './rows';

type Db = Sql | Tx;

const KEY_COLUMNS = (db: Db) =>
  db`k.id, k.user_id, k.name, k.prefix, k.scopes, k.created_at, k.expires_at, k.last_used_at`;

export async function insertKey(
  tx: Tx,
  key: {
    userId: number;
    name: string;
    prefix: string;
    hash: Buffer;
    scopes: Scope[];
    expiresAt: Date | null;
  },
): Promise<ApiKeyRow> {
  const [row] = await tx<ApiKeyRow[]>`
    insert into api_keys as k (user_id, name, prefix, key_hash, scopes, expires_at)
    values (${key.userId}, ${key.name}, ${key.prefix}, ${key.hash}, ${key.scopes}::text[], ${key.expiresAt})
    returning ${KEY_COLUMNS(tx)}`;
  return row!;
}

/** The user's live keys, counted under a lock held until the transaction ends: the next creator waits. */
export async function countLiveKeysLocked(tx: Tx, userId: number): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtext(${`api_keys:${userId}`}))`;
  const [row] = await tx<{ count: number }[]>`
    select count(*)::int as count from api_keys where user_id = ${userId} and revoked_at is null`;
  return row!.count;
}

/** Live keys of a user: not revoked, expired ones included (the owner sees them expire). */
export async function listKeys(db: Db, userId: number): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    select ${KEY_COLUMNS(db)} from api_keys k
    where k.user_id = ${userId} and k.revoked_at is null
    order by k.created_at desc, k.id desc`;
}

/** Revokes one of the user's keys; null when there is no such live key. */
export async function revokeKey(tx: Tx, userId: number, id: number): Promise<ApiKeyRow | null> {
  const [row] = await tx<ApiKeyRow[]>`
    update api_keys k set revoked_at = now()
    where k.id = ${id} and k.user_id = ${userId} and k.revoked_at is null
    returning ${KEY_COLUMNS(tx)}`;
  return row ?? null;
}

export interface KeyOwner {
  keyId: number;
  userId: number;
  role: Role;
  plan: Plan;
  hourlyLimit: number | null;
  dailyLimit: number | null;
  scopes: Scope[];
  expiresAt: Date | null;
  /** The owner's active suspension, if any: when it ends (null: when lifted) and why. */
  suspended: boolean;
  suspendedUntil: Date | null;
  suspensionReason: string | null;
}

/** The owner's active suspension, joined as `s` to a query of `users u` (DESIGN.md §12). */
export const SUSPENSION_OF_OWNER = (db: Db) => db`
  left join suspensions s on s.user_id = u.id and (s.until is null or s.until > now())`;
export const SUSPENSION_COLUMNS = (db: Db) =>
  db`s.user_id is not null as suspended, s.until as suspended_until, s.reason as suspension_reason`;

/** The live, unexpired key with this hash and its owner's rights. */
export async function findKeyOwner(db: Db, hash: Buffer): Promise<KeyOwner | null> {
  const [row] = await db<KeyOwner[]>`
    select k.id as key_id, k.user_id, u.role, u.plan, u.hourly_limit, u.daily_limit, k.scopes, k.expires_at,
           ${SUSPENSION_COLUMNS(db)}
    from api_keys k join users u on u.id = k.user_id ${SUSPENSION_OF_OWNER(db)}
    where k.key_hash = ${hash} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`;
  return row ?? null;
}

/**
 * Writes many last-used times in one statement; a time never moves backwards. The rows are locked
 * in id order first, so two batches over the same keys (two replicas) never deadlock.
 */
export async function recordKeyUsage(db: Db, used: { keyId: number; at: Date }[]): Promise<void> {
  if (used.length === 0) return;
  const ids = used.map((u) => u.keyId);
  const times = used.map((u) => u.at.toISOString());
  await db`
    with locked as (select id from api_keys where id = any(${ids}::int[]) order by id for update)
    update api_keys k set last_used_at = greatest(coalesce(k.last_used_at, u.at), u.at)
    from unnest(${ids}::int[], ${times}::timestamptz[]) as u(id, at)
    where k.id = u.id and k.id in (select id from locked)`;
}
