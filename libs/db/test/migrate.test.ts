import postgres from 'postgres';
import { createDb, ensureDatabase, isConnectionError, migrate, pingDb } from '@community/db';
import { dropRoles, testInfra, testRoleName, uniqueName } from '@community/test-harness';

function urlFor(name: string) {
  const url = new URL(testInfra().pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('database kit', () => {
  const name = `cp_test_${testInfra().runId}_${uniqueName('db')}`.slice(0, 60);
  const url = urlFor(name);
  const role = testRoleName('migrator');
  afterAll(async () => {
    const admin = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
    await dropRoles([role]);
  });

  it('creates a missing database, even when several processes race', async () => {
    await Promise.all([ensureDatabase(url), ensureDatabase(url), ensureDatabase(url)]);
    const sql = createDb(url, { schema: 'x' });
    expect(await pingDb(sql)).toBeGreaterThanOrEqual(0);
    await sql.end();
  });

  it('applies forward-only migrations once, in order, under a lock, into the schema', async () => {
    const sql = createDb(url, { schema: 'svc' });
    const migrations = [
      { name: '0002_more.sql', sql: 'alter table things add column label text' },
      { name: '0001_init.sql', sql: 'create table things (id int primary key)' },
    ];
    const results = await Promise.all([migrate(sql, 'svc', migrations), migrate(sql, 'svc', migrations)]);
    expect(results.map((applied) => applied.length).sort()).toEqual([0, 2]);
    expect(results.find((r) => r.length)).toEqual(['0001_init.sql', '0002_more.sql']);
    const recorded = await sql`select name from svc.schema_migrations order by name`;
    expect(recorded.map((r) => r.name)).toEqual(['0001_init.sql', '0002_more.sql']);
    await sql`insert into things (id, label) values (1, 'x')`;
    await sql.end();
  });

  it('leaves the schema untouched when a migration fails', async () => {
    const sql = createDb(url, { schema: 'broken' });
    await expect(
      migrate(sql, 'broken', [
        { name: '0001_ok.sql', sql: 'create table a (id int)' },
        { name: '0002_bad.sql', sql: 'create tabel b (id int)' },
      ]),
    ).rejects.toThrow();
    const [row] =
      await sql`select count(*)::int as n from information_schema.tables where table_schema = 'broken'`;
    expect(row?.n).toBe(0);
    await sql.end();
  });

  it('migrates as a role that owns its schema but may not create schemas (the container set-up)', async () => {
    await ensureDatabase(url);
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create role ${role} login`);
    await admin.unsafe(`create schema owned authorization ${role}`);
    await admin.end();
    const asRole = new URL(url);
    asRole.username = role;

    await ensureDatabase(asRole.toString());
    const sql = createDb(asRole.toString(), { schema: 'owned' });
    const migrations = [{ name: '0001_init.sql', sql: 'create table things (id int primary key)' }];
    expect(await migrate(sql, 'owned', migrations)).toEqual(['0001_init.sql']);
    expect(await migrate(sql, 'owned', migrations)).toEqual([]);
    await expect(migrate(sql, 'elsewhere', migrations)).rejects.toThrow(/permission denied/);
    await sql.end();
  });

  it('recognises connection errors', async () => {
    const sql = createDb('postgres://postgres@127.0.0.1:1/none', { schema: 'x' });
    const err = await sql`select 1`.catch((e: unknown) => e);
    expect(isConnectionError(err)).toBe(true);
    expect(isConnectionError(new Error('syntax'))).toBe(false);
    await sql.end();
  });
});
