import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql, Tx } from './client';
import { inTransaction } from './transaction';

export interface Migration {
  /** Unique, sortable name, e.g. `0001_init.sql`; recorded once applied. */
  name: string;
  sql: string;
}

/**
 * A migration whose first line is this runs alone, outside any transaction: the way to
 * `create index concurrently`, which builds an index while writes to its table go on (PostgreSQL
 * refuses it in a transaction). Such a file holds one statement that can run again (`if not
 * exists`): a build cut short is started over by the next migrator.
 */
export const NO_TRANSACTION = '-- migrate: no-transaction';

/** How often a migrator asks for the lock another one holds. */
const LOCK_POLL_MS = 100;
/** How often a concurrent build looks for a migrator of an older release waiting for the lock. */
const WAITER_POLL_MS = 250;

/** Reads `*.sql` files of a folder in name order. */
export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file, sql: readFileSync(path.join(dir, file), 'utf8') }));
}

/**
 * Applies the migrations not yet recorded in `<schema>.schema_migrations`, forward only, in name order.
 *
 * One migrator at a time per schema: a transaction on a connection of its own holds an advisory lock
 * for the whole run (transaction-scoped, so it holds through PgBouncer's transaction pooling too),
 * which is why `sql` must allow two connections. The lock is polled for rather than waited on: a
 * statement waiting for it would hold a snapshot, `create index concurrently` waits for every older
 * snapshot, and neither would ever finish. Migrators of earlier releases do wait on it; a build steps
 * aside for one (applyAlone) and starts again once it is through.
 *
 * Consecutive migrations run in one transaction, so a failing file leaves the schema as the last
 * no-transaction file (or the start) left it. A concurrent build cut short leaves its index invalid:
 * before each no-transaction file the schema's invalid indexes are dropped, so that the file builds
 * them again (the lock's holder is the only one building indexes in its schema).
 */
export async function migrate(sql: Sql, schema: string, migrations: Migration[]): Promise<string[]> {
  assertUniqueNames(migrations);
  if (sql.options.max < 2)
    throw new Error('migrate needs a pool of two connections: one holds the lock, the other migrates');
  const sorted = [...migrations].sort((a, b) => a.name.localeCompare(b.name));
  const guard = await sql.reserve();
  try {
    const applied: string[] = [];
    for (;;) {
      await lockSchema(guard, schema);
      const done = await appliedNames(sql, schema);
      let yielded = false;
      for (const batch of batches(sorted.filter((migration) => !done.has(migration.name)))) {
        if (!outsideTransaction(batch[0]!)) await applyTogether(sql, schema, batch);
        else if ((await applyAlone(sql, guard, schema, batch[0]!)) === 'yielded') {
          yielded = true;
          break;
        }
        applied.push(...batch.map((migration) => migration.name));
      }
      if (!yielded) return applied;
      // An older migrator waits for the lock: let it through, then take the lock again.
      await guard.unsafe('rollback');
    }
  } finally {
    await guard.unsafe('rollback').catch(() => {});
    guard.release();
  }
}

/** The guard's queries are simple ones (see lockSchema), so their values are literals. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const lockKey = (schema: string) => `hashtext(${literal('migrate:' + schema)})`;

async function lockSchema(guard: Sql, schema: string): Promise<void> {
  // A simple query: an extended-protocol one leaves its portal, and the portal's snapshot, open
  // until the transaction ends, and the concurrent build would wait for it.
  for (;;) {
    await guard.unsafe('begin');
    const [row] = await guard.unsafe<{ locked: boolean }[]>(
      `select pg_try_advisory_xact_lock(${lockKey(schema)}) as locked`,
    );
    if (row?.locked) return;
    await guard.unsafe('rollback');
    await sleep(LOCK_POLL_MS);
  }
}

/**
 * Whether a session waits for the lock. Only a migrator of a release before this one does (it waits
 * where this one polls), and its waiting statement holds a snapshot that a concurrent build would
 * wait for while it waits for the build's lock.
 */
async function lockWaitedFor(guard: Sql, schema: string): Promise<boolean> {
  const [row] = await guard.unsafe<{ waited: boolean }[]>(`
    with k as (select ${lockKey(schema)}::bigint as k)
    select exists (
      select 1 from pg_locks l, k
      where l.locktype = 'advisory' and not l.granted and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())
        and l.classid = ((k.k >> 32) & 4294967295)::oid and l.objid = (k.k & 4294967295)::oid
    ) as waited`);
  return row?.waited ?? false;
}

async function appliedNames(sql: Sql, schema: string): Promise<Set<string>> {
  const [table] = await sql<{ found: boolean }[]>`
    select to_regclass(format('%I.schema_migrations', ${schema}::text)) is not null as found`;
  if (!table?.found) return new Set();
  const rows = await sql<{ name: string }[]>`select name from ${sql(schema)}.schema_migrations`;
  return new Set(rows.map((row) => row.name));
}

const outsideTransaction = (migration: Migration) => migration.sql.startsWith(NO_TRANSACTION);

/** Runs of migrations that share a transaction; each no-transaction migration is a run of its own. */
function batches(migrations: Migration[]): Migration[][] {
  const runs: Migration[][] = [];
  for (const migration of migrations) {
    const last = runs.at(-1);
    if (last && !outsideTransaction(migration) && !outsideTransaction(last[0]!)) last.push(migration);
    else runs.push([migration]);
  }
  return runs;
}

async function applyTogether(sql: Sql, schema: string, migrations: Migration[]): Promise<void> {
  await inTransaction(sql, async (tx) => {
    await prepareSchema(tx, schema);
    for (const migration of migrations) {
      await tx.unsafe(`set local search_path to ${quoted(schema)}`);
      await tx.unsafe(migration.sql);
      await tx`insert into ${tx(schema)}.schema_migrations (name) values (${migration.name})`;
    }
  });
}

/**
 * A no-transaction migration runs on a pooled connection as it is, in the schema that connection was
 * opened with (a `set` outside a transaction would outlive the migration there). While it runs, a
 * migrator of an older release waiting for the lock cancels it: the build would wait for that
 * migrator, which waits for the build. Answers 'yielded' then; the index is built on the next try.
 */
async function applyAlone(
  sql: Sql,
  guard: Sql,
  schema: string,
  migration: Migration,
): Promise<'applied' | 'yielded'> {
  await inTransaction(sql, (tx) => prepareSchema(tx, schema));
  const [connected] = await sql<{ schema: string | null }[]>`select current_schema() as schema`;
  if (connected?.schema !== schema)
    throw new Error(
      `${migration.name} runs outside a transaction, in its connection's schema (${connected?.schema}): connect with schema ${schema}`,
    );
  const invalid = await sql<{ name: string }[]>`
    select c.relname as name from pg_index i
    join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and not i.indisvalid`;
  let yielded = false;
  const built = new AbortController();
  // The drops wait for older snapshots as the build does, so they carry its mark (see the cancel:
  // it stops the marked statements of this schema's pool, named after the schema by createDb).
  const build = (async () => {
    for (const { name } of invalid)
      await sql.unsafe(
        `${NO_TRANSACTION}\ndrop index concurrently if exists ${quoted(schema)}.${quoted(name)}`,
      );
    await sql.unsafe(migration.sql);
  })().finally(() => built.abort());
  const watching = waiterAppears(guard, schema, built.signal)
    .then(async (appeared) => {
      if (!appeared || built.signal.aborted) return;
      yielded = true;
      await guard.unsafe(`
      select pg_cancel_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state = 'active'
        and query like '${NO_TRANSACTION}%' and application_name = ${literal(schema)}`);
    })
    .catch(() => {});
  try {
    await build;
  } catch (err) {
    if (yielded) return 'yielded';
    throw err;
  } finally {
    await watching;
  }
  await sql`insert into ${sql(schema)}.schema_migrations (name) values (${migration.name})`;
  return 'applied';
}

const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** True once a session waits for the lock; false when `stop` aborts first (or the guard fails). */
async function waiterAppears(guard: Sql, schema: string, stop: AbortSignal): Promise<boolean> {
  try {
    for (;;) {
      await sleep(WAITER_POLL_MS, undefined, { signal: stop });
      if (await lockWaitedFor(guard, schema)) return true;
    }
  } catch {
    return false;
  }
}

async function prepareSchema(tx: Tx, schema: string): Promise<void> {
  const ident = tx(schema);
  // `create schema if not exists` needs CREATE on the database even when the schema exists, which a
  // role that may only use its own, pre-created schema (docker compose, Kubernetes) does not have.
  const [existing] = await tx`select 1 as found from pg_namespace where nspname = ${schema}`;
  if (!existing) await tx`create schema ${ident}`;
  await tx`
    create table if not exists ${ident}.schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`;
}

function assertUniqueNames(migrations: Migration[]): void {
  const seen = new Set<string>();
  for (const { name } of migrations) {
    if (seen.has(name)) throw new Error(`duplicate migration name ${name}`);
    seen.add(name);
  }
}
