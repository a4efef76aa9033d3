import postgres from 'postgres';

import { createTestDatabase, testInfra } from '../src';
import type { TestDatabase } from '../src';

async function databaseExists(name: string): Promise<boolean> {
  const sql = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    return rows.length > 0;
  } finally {
    await sql.end();
  }
}

describe('createTestDatabase', () => {
  const created: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of created) await db.drop();
  });

  it('creates a database the returned url connects to, named after the run and label', async () => {
    const db = await createTestDatabase('Posts Service');
    created.push(db);

    const sql = postgres(db.url, { max: 1 });
    const [row] = await sql<{ name: string }[]>`select current_database() as name`;
    await sql.end();

    expect(row?.name).toBe(db.name);
    expect(db.name).toMatch(new RegExp(`^cp_test_${testInfra().runId}_posts_service_[a-z0-9_]+$`));
    expect(db.name.length).toBeLessThanOrEqual(63);
  });

  it('keeps two databases apart', async () => {
    const [a, b] = await Promise.all([createTestDatabase('iso'), createTestDatabase('iso')]);
    created.push(a, b);
    const sqlA = postgres(a.url, { max: 1, onnotice: () => {} });
    const sqlB = postgres(b.url, { max: 1, onnotice: () => {} });

    await sqlA`create table widgets (id int)`;
    const [inB] = await sqlB<{ found: string | null }[]>`select to_regclass('public.widgets')::text as found`;
    await Promise.all([sqlA.end(), sqlB.end()]);

    expect(a.name).not.toBe(b.name);
    expect(inB?.found).toBeNull();
  });

  it('drop() removes the database even while a client is still connected, and may be called twice', async () => {
    const db = await createTestDatabase('dropme');
    const lingering = postgres(db.url, { max: 1 });
    await lingering`select 1`;

    await db.drop();
    await db.drop();

    expect(await databaseExists(db.name)).toBe(false);
    await lingering.end({ timeout: 1 }).catch(() => {});
  });
});
