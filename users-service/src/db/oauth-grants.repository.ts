import type { Role, Scope } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import { SUSPENSION_COLUMNS, SUSPENSION_OF_OWNER, type KeyOwner } from './keys.repository';

type Db = Sql | Tx;

/** What every code and token lookup carries: its grant, the app and the user it acts for. */
interface GrantContext {
  grantId: number;
  grantRevokedAt: Date | null;
  appId: number;
  clientId: string;
  userId: number;
  role: Role;
  scopes: Scope[];
}

export interface CodeRow extends GrantContext {
  redirectUri: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface TokenRow extends GrantContext {
  id: number;
  kind: 'access' | 'refresh';
  expiresAt: Date;
  revokedAt: Date | null;
}

const CONTEXT_JOIN = (db: Db) => db`
  join oauth_grants g on g.id = x.grant_id
  join oauth_apps a on a.id = g.app_id
  join users u on u.id = g.user_id`;

const CONTEXT_COLUMNS = (db: Db) =>
  db`g.id as grant_id, g.revoked_at as grant_revoked_at, a.id as app_id, a.client_id, g.user_id, u.role`;

export async function insertGrant(
  tx: Tx,
  grant: { appId: number; userId: number; scopes: Scope[] },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into oauth_grants (app_id, user_id, scopes)
    values (${grant.appId}, ${grant.userId}, ${grant.scopes}::text[]) returning id`;
  return row!.id;
}

export async function insertCode(
  tx: Tx,
  code: {
    hash: Buffer;
    grantId: number;
    redirectUri: string;
    codeChallenge: string | null;
    codeChallengeMethod: string | null;
    expiresAt: Date;
  },
): Promise<void> {
  await tx`
    insert into oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, code_challenge_method, expires_at)
    values (${code.hash}, ${code.grantId}, ${code.redirectUri}, ${code.codeChallenge},
      ${code.codeChallengeMethod}, ${code.expiresAt})`;
}

/** The code with this hash, used or not (a second use is how a replay is detected). */
export async function findCode(db: Db, hash: Buffer): Promise<CodeRow | null> {
  const [row] = await db<CodeRow[]>`
    select ${CONTEXT_COLUMNS(db)}, g.scopes, x.redirect_uri, x.code_challenge, x.code_challenge_method,
      x.expires_at, x.used_at
    from oauth_codes x ${CONTEXT_JOIN(db)}
    where x.code_hash = ${hash}`;
  return row ?? null;
}

/** Marks the code used; false when another exchange got there first. */
export async function useCode(db: Db, hash: Buffer): Promise<boolean> {
  const rows = await db`
    update oauth_codes set used_at = now() where code_hash = ${hash} and used_at is null returning 1`;
  return rows.length > 0;
}

export async function insertToken(
  tx: Tx,
  token: { grantId: number; kind: 'access' | 'refresh'; hash: Buffer; scopes: Scope[]; expiresAt: Date },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into oauth_tokens (grant_id, kind, token_hash, scopes, expires_at)
    values (${token.grantId}, ${token.kind}, ${token.hash}, ${token.scopes}::text[], ${token.expiresAt})
    returning id`;
  return row!.id;
}

/** The token with this hash, revoked or not (a rotated refresh token used again is a replay). */
export async function findToken(db: Db, hash: Buffer): Promise<TokenRow | null> {
  const [row] = await db<TokenRow[]>`
    select ${CONTEXT_COLUMNS(db)}, x.scopes, x.id, x.kind, x.expires_at, x.revoked_at
    from oauth_tokens x ${CONTEXT_JOIN(db)}
    where x.token_hash = ${hash}`;
  return row ?? null;
}

/** Revokes one token (or marks a refresh token used); false when it already was. */
export async function revokeToken(db: Db, id: number): Promise<boolean> {
  const rows = await db`
    update oauth_tokens set revoked_at = now() where id = ${id} and revoked_at is null returning 1`;
  return rows.length > 0;
}

/** Revokes a grant and every token under it; returns the access tokens that were still live. */
export async function revokeGrant(tx: Tx, grantId: number): Promise<number[]> {
  await tx`update oauth_grants set revoked_at = now() where id = ${grantId} and revoked_at is null`;
  const rows = await tx<{ id: number; kind: string; expiresAt: Date }[]>`
    update oauth_tokens set revoked_at = now()
    where grant_id = ${grantId} and revoked_at is null
    returning id, kind, expires_at`;
  return liveAccess(rows);
}

/** Access tokens of an app that still work, e.g. before the app is deleted. */
export async function liveAccessTokensOfApp(tx: Tx, appId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select t.id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
    where g.app_id = ${appId} and g.revoked_at is null
      and t.kind = 'access' and t.revoked_at is null and t.expires_at > now()`;
  return rows.map((row) => row.id);
}

const liveAccess = (rows: { id: number; kind: string; expiresAt: Date }[]) =>
  rows.filter((row) => row.kind === 'access' && row.expiresAt.getTime() > Date.now()).map((row) => row.id);

export interface LiveGrantRow {
  id: number;
  appName: string;
  scopes: Scope[];
  createdAt: Date;
}

/** The grants of a user that still hold a working token: the apps that can act for them now. */
export async function liveGrantsOfUser(db: Db, userId: number): Promise<LiveGrantRow[]> {
  return db<LiveGrantRow[]>`
    select g.id, a.name as app_name, g.scopes, g.created_at
    from oauth_grants g join oauth_apps a on a.id = g.app_id
    where g.user_id = ${userId} and g.revoked_at is null
      and exists (
        select 1 from oauth_tokens t
        where t.grant_id = g.id and t.revoked_at is null and t.expires_at > now())
    order by g.created_at desc, g.id desc`;
}

export async function isGrantOf(db: Db, grantId: number, userId: number): Promise<boolean> {
  const rows = await db`select 1 from oauth_grants where id = ${grantId} and user_id = ${userId}`;
  return rows.length > 0;
}

/** The gateway's lookup for an access token: the same answer as for an API key. */
export async function findAccessTokenOwner(db: Db, hash: Buffer): Promise<KeyOwner | null> {
  const [row] = await db<KeyOwner[]>`
    select t.id as key_id, g.user_id, u.role, u.plan, u.hourly_limit, u.daily_limit, t.scopes, t.expires_at,
           ${SUSPENSION_COLUMNS(db)}
    from oauth_tokens t
      join oauth_grants g on g.id = t.grant_id
      join users u on u.id = g.user_id
      ${SUSPENSION_OF_OWNER(db)}
    where t.token_hash = ${hash} and t.kind = 'access' and t.revoked_at is null
      and g.revoked_at is null and t.expires_at > now()`;
  return row ?? null;
}

/**
 * Drops codes and tokens a day after they expired (until then a replayed one is still recognised),
 * and grants left with neither.
 */
export async function pruneOAuth(db: Db): Promise<void> {
  await db`delete from oauth_codes where expires_at < now() - interval '1 day'`;
  await db`delete from oauth_tokens where expires_at < now() - interval '1 day'`;
  await db`
    delete from oauth_grants g
    where g.created_at < now() - interval '1 day'
      and not exists (select 1 from oauth_codes c where c.grant_id = g.id)
      and not exists (select 1 from oauth_tokens t where t.grant_id = g.id)`;
}
