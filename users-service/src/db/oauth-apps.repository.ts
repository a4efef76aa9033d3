import type { OAuthClientType, Role } from '@community/contracts';
import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface OAuthAppRow {
  id: number;
  userId: number;
  clientId: string;
  name: string;
  clientType: OAuthClientType;
  redirectUris: string[];
  secretIssuedAt: Date | null;
  createdAt: Date;
}

/** An app as the token endpoint sees it: with its secret's hash and its owner's role. */
export interface OAuthClientRow extends OAuthAppRow {
  secretHash: Buffer | null;
  ownerRole: Role;
  ownerUsername: string;
}

const APP_COLUMNS = (db: Db) =>
  db`a.id, a.user_id, a.client_id, a.name, a.client_type, a.redirect_uris, a.secret_issued_at, a.created_at`;

export async function insertApp(
  tx: Tx,
  app: {
    userId: number;
    clientId: string;
    name: string;
    clientType: OAuthClientType;
    redirectUris: string[];
    secretHash: Buffer | null;
  },
): Promise<OAuthAppRow> {
  const [row] = await tx<OAuthAppRow[]>`
    insert into oauth_apps as a (user_id, client_id, name, client_type, redirect_uris, secret_hash, secret_issued_at)
    values (${app.userId}, ${app.clientId}, ${app.name}, ${app.clientType}, ${app.redirectUris}::text[],
      ${app.secretHash}, ${app.secretHash ? new Date() : null})
    returning ${APP_COLUMNS(tx)}`;
  return row!;
}

/** The user's app count, taken under a lock held until the transaction ends: the next creator waits. */
export async function countAppsLocked(tx: Tx, userId: number): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtext(${`oauth_apps:${userId}`}))`;
  const [row] = await tx<{ count: number }[]>`
    select count(*)::int as count from oauth_apps where user_id = ${userId}`;
  return row!.count;
}

export async function listApps(db: Db, userId: number): Promise<OAuthAppRow[]> {
  return db<OAuthAppRow[]>`
    select ${APP_COLUMNS(db)} from oauth_apps a
    where a.user_id = ${userId}
    order by a.created_at desc, a.id desc`;
}

export async function findApp(db: Db, userId: number, id: number): Promise<OAuthAppRow | null> {
  const [row] = await db<OAuthAppRow[]>`
    select ${APP_COLUMNS(db)} from oauth_apps a where a.id = ${id} and a.user_id = ${userId}`;
  return row ?? null;
}

export async function findClient(db: Db, clientId: string): Promise<OAuthClientRow | null> {
  const [row] = await db<OAuthClientRow[]>`
    select ${APP_COLUMNS(db)}, a.secret_hash, u.role as owner_role, u.username as owner_username
    from oauth_apps a join users u on u.id = a.user_id
    where a.client_id = ${clientId}`;
  return row ?? null;
}

/** A new secret for a confidential app of this user; null when there is no such app. */
export async function replaceSecret(
  tx: Tx,
  userId: number,
  id: number,
  secretHash: Buffer,
): Promise<OAuthAppRow | null> {
  const [row] = await tx<OAuthAppRow[]>`
    update oauth_apps a set secret_hash = ${secretHash}, secret_issued_at = now()
    where a.id = ${id} and a.user_id = ${userId} and a.client_type = 'confidential'
    returning ${APP_COLUMNS(tx)}`;
  return row ?? null;
}

/** Deletes the app with its grants, codes and tokens (cascade); false when there was no such app. */
export async function deleteApp(tx: Tx, userId: number, id: number): Promise<boolean> {
  const rows = await tx`delete from oauth_apps where id = ${id} and user_id = ${userId} returning id`;
  return rows.length > 0;
}
