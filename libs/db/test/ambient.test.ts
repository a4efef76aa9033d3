import { execFileSync } from 'node:child_process';
import { types } from 'node:util';
import { inTransaction, joinable, withAmbient, type Sql } from '@community/db';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@community/test-harness';

let database: TestDatabase;
let pool: Sql;
let sql: Sql;

beforeAll(async () => {
  database = await createTestDatabase('ambient');
  pool = postgres(database.url, { max: 4, fetch_types: false, onnotice: () => {} });
  sql = joinable(pool);
  await pool`create table items (label text not null)`;
});
afterAll(async () => {
  await pool.end({ timeout: 5 });
  await database.drop();
});

/**
 * Whether an `AsyncLocalStorage` is tracked, before, inside and after ambient transactions (two of
 * them overlapping), seen from a fresh node: jest's own worker has one enabled already. On Node 20
 * an enabled one's hook gives every promise made a `kResourceStore` symbol property, and none once
 * it is off (from the next tick). Node 20 is what the services run on and what the cost was
 * measured on; a Node whose tracking works otherwise fails the "inside" checks, and the cost is to
 * be measured again there.
 */
const TRACKING = `
import { setTimeout as sleep } from 'node:timers/promises';
import db from '@community/db';
const { ambientTx, withAmbient } = db;
const tracking = async () => {
  await sleep(1);
  return Object.getOwnPropertySymbols(new Promise(() => {})).some((s) => s.description === 'kResourceStore');
};
const [pool, first, second] = [{}, { name: 'first' }, { name: 'second' }];
const seen = { before: await tracking() };
let firstDone;
const firstEnded = new Promise((resolve) => (firstDone = resolve));
await Promise.all([
  withAmbient(pool, first, async () => {
    seen.inside = await tracking();
  }).then(firstDone),
  withAmbient(pool, second, async () => {
    await firstEnded;
    seen.secondAfterFirst = [await tracking(), ambientTx(pool)?.name];
  }),
]);
seen.after = await tracking();
console.log(JSON.stringify(seen));
`;

const labels = async () => (await pool`select label from items order by label`).map((r) => r.label as string);

describe('ambient transactions', () => {
  beforeEach(() => pool`truncate items`);

  it('joins the queries of the pool to the open transaction, and undoes them with it', async () => {
    await expect(
      inTransaction(pool, (tx) =>
        withAmbient(sql, tx, async () => {
          await sql`insert into items (label) values ('inside')`;
          throw new Error('rolled back');
        }),
      ),
    ).rejects.toThrow('rolled back');
    await sql`insert into items (label) values ('outside')`;
    expect(await labels()).toEqual(['outside']);
  });

  it('joins unsafe and begin too: a transaction begun inside is a savepoint of the ambient one', async () => {
    await expect(
      inTransaction(pool, (tx) =>
        withAmbient(sql, tx, async () => {
          await sql.unsafe(`insert into items (label) values ('unsafe')`);
          await sql.begin((inner) => inner`insert into items (label) values ('begun')`);
          throw new Error('rolled back');
        }),
      ),
    ).rejects.toThrow('rolled back');
    await sql.unsafe(`insert into items (label) values ('outside')`);
    await sql.begin((tx) => tx`insert into items (label) values ('own')`);
    expect(await labels()).toEqual(['outside', 'own']);
  });

  it('is a plain function on the pool, not a Proxy (a Proxy kept every query past a scavenge)', () => {
    expect(types.isProxy(sql)).toBe(false);
    expect(sql.options).toBe(pool.options);
    expect(sql.json).toBe(pool.json);
  });

  it('tracks async context only while one is open: every other request pays nothing for it', () => {
    const out = execFileSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', TRACKING],
      { cwd: __dirname, encoding: 'utf8', timeout: 30_000 },
    );
    expect(JSON.parse(out)).toEqual({
      before: false,
      inside: true,
      secondAfterFirst: [true, 'second'],
      after: false,
    });
  });

  it('keeps a later transaction ambient when one that began before it ends first', async () => {
    let firstDone!: () => void;
    const firstEnded = new Promise<void>((resolve) => (firstDone = resolve));
    const first = inTransaction(pool, (tx) =>
      withAmbient(sql, tx, async () => {
        await sql`insert into items (label) values ('first')`;
      }),
    ).then(firstDone);
    const second = inTransaction(pool, (tx) =>
      withAmbient(sql, tx, async () => {
        await firstEnded;
        // Still this transaction's: undone with it below.
        await sql`insert into items (label) values ('second')`;
        throw new Error('undo the second');
      }),
    );
    await first;
    await expect(second).rejects.toThrow('undo the second');
    expect(await labels()).toEqual(['first']);
  });
});
