import postgres from 'postgres';
import { createDb, migrate, NO_TRANSACTION, type Sql } from '@community/db';
import { createTestDatabase, type TestDatabase, waitFor } from '@community/test-harness';

/*
 * A migration marked NO_TRANSACTION runs alone, outside any transaction, so `create index
 * concurrently` builds an index while writes to its table go on: an upgrade need not pause writes.
 */

let database: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await createTestDatabase('migrate_concurrently');
  sql = createDb(database.url, { schema: 'live', max: 6 });
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await database.drop();
});

const table = { name: '0001_table.sql', sql: 'create table things (id int primary key, v int)' };
const concurrently = (name: string, statement: string) => ({ name, sql: `${NO_TRANSACTION}\n${statement}` });

async function indexValid(schema: string, name: string): Promise<boolean | undefined> {
  const [row] = await sql<{ valid: boolean }[]>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relname = ${name}`;
  return row?.valid;
}

/**
 * Opens a write to `schema`.things left uncommitted, starts a migration that builds an index on the
 * table, and waits until the build waits for that write; `commit` ends the write.
 */
async function buildWaitingForAWrite(pool: Sql, schema: string) {
  let commit = () => {};
  const held = new Promise<void>((resolve) => (commit = resolve));
  let inserted = false;
  const writer = pool.begin(async (tx) => {
    await tx`insert into ${tx(schema)}.things values (1, 1)`;
    inserted = true;
    await held;
  });
  await waitFor(() => inserted);
  const migrated = migrate(pool, schema, [
    table,
    concurrently('0002_index.sql', 'create index concurrently if not exists things_v_idx on things (v)'),
  ]);
  await waitFor(async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where query like ${NO_TRANSACTION + '%'} and wait_event_type = 'Lock'`;
    return row!.n === 1;
  });
  return {
    migrated,
    commit: async () => {
      commit();
      await writer;
    },
  };
}

/** Whether `promise` settles within `ms`. */
const within = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

it('builds an index while a write waits to commit and others go on', async () => {
  await migrate(sql, 'live', [table]);
  const build = await buildWaitingForAWrite(sql, 'live');
  // The build waits for the open write to end; meanwhile another write is not held behind it.
  expect(await within(sql`insert into live.things values (2, 2)`, 2_000)).toBe(true);
  await build.commit();
  expect(await build.migrated).toEqual(['0002_index.sql']);
  expect(await indexValid('live', 'things_v_idx')).toBe(true);
});

it('lets a migrator of an older release waiting for the lock through, then builds', async () => {
  const pool = createDb(database.url, { schema: 'old', max: 4 });
  await migrate(pool, 'old', [table]);
  const build = await buildWaitingForAWrite(pool, 'old');
  // Releases before this one wait for the lock in a statement, whose snapshot the build would wait for.
  const older = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const through = older.begin((tx) => tx`select pg_advisory_xact_lock(hashtext('migrate:old'))`);
    expect(await within(through, 3_000)).toBe(true);
  } finally {
    await older.end({ timeout: 1 });
  }
  await build.commit();
  expect(await build.migrated).toEqual(['0002_index.sql']);
  expect(await indexValid('old', 'things_v_idx')).toBe(true);
  await pool.end({ timeout: 1 });
});

it('builds again an index whose build was cut short', async () => {
  const migrations = [
    table,
    concurrently(
      '0002_unique.sql',
      'create unique index concurrently if not exists things_v_key on things (v)',
    ),
  ];
  const pool = createDb(database.url, { schema: 'cut', max: 2 });
  try {
    await migrate(pool, 'cut', [table]);
    await pool`insert into cut.things values (1, 7), (2, 7)`;
    await expect(migrate(pool, 'cut', migrations)).rejects.toThrow(/could not create unique index/);
    expect(await indexValid('cut', 'things_v_key')).toBe(false);
    await pool`delete from cut.things where id = 2`;
    expect(await migrate(pool, 'cut', migrations)).toEqual(['0002_unique.sql']);
    expect(await indexValid('cut', 'things_v_key')).toBe(true);
  } finally {
    await pool.end({ timeout: 1 });
  }
});

it('applies a concurrent build once when two migrators start together', async () => {
  const pools = [0, 1].map(() => createDb(database.url, { schema: 'race', max: 2 }));
  try {
    const migrations = [
      table,
      concurrently('0002_index.sql', 'create index concurrently if not exists things_v_idx on things (v)'),
      { name: '0003_more.sql', sql: 'alter table things add column label text' },
    ];
    const results = await Promise.all(pools.map((pool) => migrate(pool, 'race', migrations)));
    expect(results.map((applied) => applied.length).sort()).toEqual([0, 3]);
    const recorded = await sql`select name from race.schema_migrations order by name`;
    expect(recorded.map((row) => row.name)).toEqual(['0001_table.sql', '0002_index.sql', '0003_more.sql']);
    expect(await indexValid('race', 'things_v_idx')).toBe(true);
  } finally {
    await Promise.all(pools.map((pool) => pool.end({ timeout: 1 })));
  }
});

it('says what it needs: two connections, and its own schema for a migration outside a transaction', async () => {
  const single = postgres(database.url, { max: 1, onnotice: () => {} }) as unknown as Sql;
  await expect(migrate(single, 'one', [table])).rejects.toThrow(/two connections/);
  await single.end({ timeout: 1 });
  await expect(
    migrate(sql, 'elsewhere', [
      table,
      concurrently('0002_index.sql', 'create index concurrently x on things (v)'),
    ]),
  ).rejects.toThrow(/connect with schema elsewhere/);
});
