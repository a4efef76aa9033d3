import {
  ConflictError,
  deleted,
  MAX_OAUTH_APPS_PER_USER,
  NotFoundError,
  toTimestamp,
  type CreateOAuthAppBody,
  type Deleted,
  type OAuthApp,
  type OAuthAppWithSecret,
} from '@community/contracts';
import type { Sql } from '@community/db';
import { commitWithEvents, type TxDeps } from '@community/events';
import {
  countAppsLocked,
  deleteApp as removeApp,
  findApp,
  insertApp,
  listApps as queryApps,
  replaceSecret,
  type OAuthAppRow,
} from '../../db/oauth-apps.repository';
import { liveAccessTokensOfApp } from '../../db/oauth-grants.repository';
import { hashSecret, newOAuthValue } from './oauth-material';
import { assertNotSuspended } from '../users/suspension';
import { announceRevoked } from './revocation';

export function toOAuthApp(row: OAuthAppRow): OAuthApp {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    client_type: row.clientType,
    redirect_uris: row.redirectUris,
    created_at: toTimestamp(row.createdAt),
    secret_issued_at: row.secretIssuedAt ? toTimestamp(row.secretIssuedAt) : null,
  };
}

/** Registers an app; a confidential one gets its client secret here, and only here, in the clear. */
export async function registerApp(
  deps: TxDeps,
  userId: number,
  body: CreateOAuthAppBody,
): Promise<OAuthAppWithSecret> {
  const secret = body.client_type === 'confidential' ? newOAuthValue('clientSecret') : null;
  const row = await commitWithEvents(deps, async (tx) => {
    await assertNotSuspended(tx, userId);
    if ((await countAppsLocked(tx, userId)) >= MAX_OAUTH_APPS_PER_USER) {
      throw new ConflictError(`you already have ${MAX_OAUTH_APPS_PER_USER} OAuth apps; delete one first`);
    }
    return insertApp(tx, {
      userId,
      clientId: newOAuthValue('clientId'),
      name: body.name,
      clientType: body.client_type,
      redirectUris: body.redirect_uris,
      secretHash: secret ? hashSecret(secret) : null,
    });
  });
  return { ...toOAuthApp(row), client_secret: secret };
}

export async function listApps(sql: Sql, userId: number): Promise<OAuthApp[]> {
  return (await queryApps(sql, userId)).map(toOAuthApp);
}

/** One of the caller's apps; another user's app is a 404, as if it did not exist. */
export async function readApp(sql: Sql, userId: number, id: number): Promise<OAuthApp> {
  const row = await findApp(sql, userId, id);
  if (!row) throw new NotFoundError('OAuth app');
  return toOAuthApp(row);
}

/**
 * A new client secret; the old one stops working at once. Tokens already issued keep working until
 * they expire (an hour at most for access tokens; refreshing needs the new secret).
 */
export async function rotateSecret(deps: TxDeps, userId: number, id: number): Promise<OAuthAppWithSecret> {
  const secret = newOAuthValue('clientSecret');
  const row = await commitWithEvents(deps, async (tx) => {
    const updated = await replaceSecret(tx, userId, id, hashSecret(secret));
    if (updated) return updated;
    if (await findApp(tx, userId, id)) throw new ConflictError('a public app has no client secret to rotate');
    throw new NotFoundError('OAuth app');
  });
  return { ...toOAuthApp(row), client_secret: secret };
}

/** Deletes the app and everything issued to it; the gateway drops its live tokens within seconds. */
export async function deleteApp(deps: TxDeps, userId: number, id: number): Promise<Deleted> {
  return commitWithEvents(deps, async (tx) => {
    const live = await liveAccessTokensOfApp(tx, id);
    if (!(await removeApp(tx, userId, id))) throw new NotFoundError('OAuth app');
    await announceRevoked(tx, live);
    return deleted(id);
  });
}
