import type { Sql } from '@community/db';

export interface GrantRow {
  appId: number;
  appName: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

/** Every OAuth grant the account gave, withdrawn ones too: which apps could act for it, and when. */
export async function grantsOf(sql: Sql, userId: number): Promise<GrantRow[]> {
  return sql<GrantRow[]>`
    select g.app_id, a.name as app_name, g.scopes, g.created_at, g.revoked_at
    from oauth_grants g join oauth_apps a on a.id = g.app_id
    where g.user_id = ${userId} order by g.id`;
}
