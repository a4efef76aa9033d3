import type { Sql, Tx } from '@community/db';
import { forgetIdempotencyKeys } from '@community/db';

/** Journals the erasure of `userId` (id, time, and whether content went); false when it was journaled already. */
export async function journalErasure(tx: Tx, userId: number, content: 'keep' | 'delete'): Promise<boolean> {
  const rows = await tx`
    insert into erasures (user_id, content) values (${userId}, ${content}) on conflict do nothing returning 1`;
  return rows.length > 0;
}

export async function isErased(tx: Tx, userId: number): Promise<boolean> {
  const [row] = await tx`select 1 from erasures where user_id = ${userId}`;
  return row !== undefined;
}

/** The profile becomes `deleted-<id>`: no email, bio, avatar, nor any password that could match. */
export async function anonymiseUser(tx: Tx, userId: number): Promise<void> {
  const name = `deleted-${userId}`;
  await tx`
    update users set username = ${name}, display_name = ${name}, email = null, bio = '', avatar = null,
      password_hash = '!', updated_at = now()
    where id = ${userId}`;
}

/**
 * Ends every credential of the account: its keys, its sessions, its OAuth grants and the grants to
 * its apps (the apps go with them). Answers the access tokens that were live, for the gateway.
 */
export async function endCredentials(tx: Tx, userId: number): Promise<number[]> {
  await tx`update api_keys set revoked_at = now() where user_id = ${userId} and revoked_at is null`;
  await tx`delete from sessions where user_id = ${userId}`;
  const tokens = await tx<{ id: number }[]>`
    update oauth_tokens t set revoked_at = now()
    from oauth_grants g
    where g.id = t.grant_id and t.kind = 'access' and t.revoked_at is null and t.expires_at > now()
      and (g.user_id = ${userId} or g.app_id in (select id from oauth_apps where user_id = ${userId}))
    returning t.id`;
  await tx`delete from oauth_grants where user_id = ${userId}`;
  await tx`delete from oauth_apps where user_id = ${userId}`;
  return tokens.map((row) => row.id);
}

/** What the account received or was owed: notifications, quotas, a suspension, idempotency records. */
export async function forgetAccountRecords(tx: Tx, userId: number): Promise<void> {
  await tx`delete from notifications where recipient_id = ${userId}`;
  await tx`delete from mention_quota where recipient_id = ${userId} or actor_id = ${userId}`;
  await tx`delete from suspensions where user_id = ${userId}`;
  await forgetIdempotencyKeys(tx, userId);
}

/** The stored password hash of the account; null when there is no such account. */
export async function passwordHashOf(tx: Tx, userId: number): Promise<string | null> {
  const [row] = await tx<{ passwordHash: string }[]>`
    select password_hash from users where id = ${userId} for update`;
  return row?.passwordHash ?? null;
}

/** The account's username, for its failed-login throttle; null when there is no such account. */
export async function usernameOf(sql: Sql, userId: number): Promise<string | null> {
  const [row] = await sql<{ username: string }[]>`select username from users where id = ${userId}`;
  return row?.username ?? null;
}
