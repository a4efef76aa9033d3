import type { Sql } from '@community/db';

export interface SealedRow {
  id: number;
  secret: string;
  previousSecret: string | null;
}

/** Endpoints (deleted ones too) not known to be sealed with key `keyId`, after `afterId`, in id order. */
export async function rowsNotSealedWith(sql: Sql, keyId: string, afterId: number, limit: number) {
  return sql<SealedRow[]>`
    select id, secret, previous_secret from endpoints
    where id > ${afterId} and secrets_key_id is distinct from ${keyId}
    order by id limit ${limit}`;
}

/** Writes one endpoint's secrets sealed with key `keyId`, only if they are still the ones read. */
export async function markSealedWith(sql: Sql, row: SealedRow, sealed: Omit<SealedRow, 'id'>, keyId: string) {
  await sql`
    update endpoints set secret = ${sealed.secret}, previous_secret = ${sealed.previousSecret},
      secrets_key_id = ${keyId}
    where id = ${row.id} and secret = ${row.secret}
      and previous_secret is not distinct from ${row.previousSecret}`;
}

export async function countNotSealedWith(sql: Sql, keyId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from endpoints where secrets_key_id is distinct from ${keyId}`;
  return row!.n;
}
