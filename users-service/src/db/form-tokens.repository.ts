import type { Sql } from '@community/db';

/** Marks a one-time form token used, by its hash; false when it already was. */
export async function useFormToken(sql: Sql, tokenHash: Buffer): Promise<boolean> {
  const rows = await sql`
    insert into used_form_tokens (token_hash) values (${tokenHash}) on conflict do nothing returning token_hash`;
  return rows.length > 0;
}

export async function pruneFormTokens(sql: Sql, olderThanSeconds: number): Promise<void> {
  await sql`delete from used_form_tokens where used_at < now() - make_interval(secs => ${olderThanSeconds})`;
}
