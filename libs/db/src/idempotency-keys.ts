import type { Migration } from './migrate';
import type { Sql, Tx } from './client';

/** Idempotency keys (DESIGN.md §10): every service that takes POSTs applies this in its schema. */
export const idempotencyMigrations: Migration[] = [
  {
    name: '0000_idempotency_keys.sql',
    sql: `
-- The key itself is never stored: its hash finds the row, and the answer is sealed with a key
-- derived from it, so a copy of this table reveals no answer (a new API key's secret, say).
create table idempotency_keys (
  owner text not null,
  key_hash bytea not null,
  fingerprint bytea not null,
  status int not null,
  answer bytea not null,
  created_at timestamptz not null default now(),
  primary key (owner, key_hash)
);

-- The sweep deletes the oldest first.
create index idempotency_keys_created_idx on idempotency_keys (created_at);
`,
  },
];

/** How long a key is kept (DESIGN.md §10). */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

/** The first answer to an idempotent request, as kept: `answer` is sealed by the caller. */
export interface KeptAnswer {
  fingerprint: Buffer;
  status: number;
  answer: Buffer;
}

/** One key of one owner: who sent it (`acct:12`, `ip:…`) and the hash of the key. */
export interface KeyRef {
  owner: string;
  keyHash: Buffer;
}

/**
 * Takes the key for this transaction, or says that another transaction holds it (a request with
 * the same key still running). The lock goes with the transaction.
 */
export async function lockKey(tx: Tx, { owner, keyHash }: KeyRef): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(hashtextextended(${`idempotency\n${owner}\n${keyHash.toString('hex')}`}, 0)) as locked`;
  return row!.locked;
}

export async function keptAnswer(tx: Tx, { owner, keyHash }: KeyRef): Promise<KeptAnswer | null> {
  const [row] = await tx<KeptAnswer[]>`
    select fingerprint, status, answer from idempotency_keys
    where owner = ${owner} and key_hash = ${keyHash}
      and created_at > now() - make_interval(hours => ${IDEMPOTENCY_KEY_TTL_HOURS})`;
  return row ?? null;
}

export async function keepAnswer(tx: Tx, { owner, keyHash }: KeyRef, kept: KeptAnswer): Promise<void> {
  // An expired row the sweep has not reached yet gives way to the new answer.
  await tx`
    insert into idempotency_keys (owner, key_hash, fingerprint, status, answer)
    values (${owner}, ${keyHash}, ${kept.fingerprint}, ${kept.status}, ${kept.answer})
    on conflict (owner, key_hash) do update
      set fingerprint = excluded.fingerprint, status = excluded.status, answer = excluded.answer,
          created_at = now()`;
}

/** Deletes up to `batch` expired keys, oldest first; returns how many. */
export async function sweepIdempotencyKeys(sql: Sql, batch = 1000): Promise<number> {
  const rows = await sql`
    delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys
      where created_at < now() - make_interval(hours => ${IDEMPOTENCY_KEY_TTL_HOURS})
      order by created_at limit ${batch})
    returning 1`;
  return rows.length;
}

/** Forgets the kept answers of an erased account (DESIGN.md §20): they may hold what it wrote. */
export async function forgetIdempotencyKeys(tx: Tx, userId: number): Promise<void> {
  await tx`delete from idempotency_keys where owner = ${`acct:${userId}`}`;
}
