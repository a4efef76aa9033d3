import { NotFoundError, toTimestamp, type Scope } from '@community/contracts';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import { isGrantOf, liveGrantsOfUser } from '../../db/oauth-grants.repository';
import { revokeGrantFamily } from './revocation';

export interface AuthorizedApp {
  grantId: number;
  appName: string;
  scopes: Scope[];
  grantedAt: string;
}

/** The apps that can act for this user right now, one line per consent (or client-credentials token). */
export async function listAuthorizedApps(sql: Sql, userId: number): Promise<AuthorizedApp[]> {
  return (await liveGrantsOfUser(sql, userId)).map((row) => ({
    grantId: row.id,
    appName: row.appName,
    scopes: row.scopes,
    grantedAt: toTimestamp(row.createdAt),
  }));
}

/** The user takes their consent back: every token of that grant stops working within seconds. */
export async function withdrawGrant(deps: TxDeps, userId: number, grantId: number): Promise<void> {
  if (!(await isGrantOf(deps.sql, grantId, userId))) throw new NotFoundError('authorization');
  await revokeGrantFamily(deps, grantId);
}
