import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sql } from './client';
import { inTransaction } from './transaction';

export interface Migration {
  /** Unique, sortable name, e.g. `0001_init.sql`; recorded once applied. */
  name: string;
  sql: string;
}

/** Reads `*.sql` files of a folder in name order. */
export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file, sql: readFileSync(path.join(dir, file), 'utf8') }));
}

/**
 * Applies the migrations not yet recorded in `<schema>.schema_migrations`, forward only, in name order.
 * Everything runs in one transaction holding an advisory lock, so concurrent starts apply each file once
 * and a failing file leaves the schema as it was.
 */
export async function migrate(sql: Sql, schema: string, migrations: Migration[]): Promise<string[]> {
  assertUniqueNames(migrations);
  const ident = sql(schema);
  return inTransaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${'migrate:' + schema}))`;
    // `create schema if not exists` needs CREATE on the database even when the schema exists, which a
    // role that may only use its own, pre-created schema (docker compose, Kubernetes) does not have.
    const [existing] = await tx`select 1 as found from pg_namespace where nspname = ${schema}`;
    if (!existing) await tx`create schema ${ident}`;
    await tx`
      create table if not exists ${ident}.schema_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`;
    const rows = await tx<{ name: string }[]>`select name from ${ident}.schema_migrations`;
    const done = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    for (const migration of [...migrations].sort((a, b) => a.name.localeCompare(b.name))) {
      if (done.has(migration.name)) continue;
      await tx.unsafe(`set local search_path to "${schema}"`);
      await tx.unsafe(migration.sql);
      await tx`insert into ${ident}.schema_migrations (name) values (${migration.name})`;
      applied.push(migration.name);
    }
    return applied;
  });
}

function assertUniqueNames(migrations: Migration[]): void {
  const seen = new Set<string>();
  for (const { name } of migrations) {
    if (seen.has(name)) throw new Error(`duplicate migration name ${name}`);
    seen.add(name);
  }
}
