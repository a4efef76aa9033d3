import type { Sql } from '@community/db';
import { recordKeyUsage } from '../../src/db/keys.repository';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// Key usage is flushed in batches that update many rows at once. Two replicas flushing the same
// keys in different orders could each hold a row the other wanted next, once the table is large
// enough for the planner to find the rows by index: a deadlock, and a batch lost. The rows are
// locked in id order first now, whatever order a batch has.

let h: UsersHarness;
let userId: number;

/**
 * Runs `write` with the plan a large table gets (each row found by its index, in the order the
 * statement names them): on this small one, the planner would scan it whole, in one order anyway.
 */
const asOnALargeTable = <T>(write: (tx: Sql) => Promise<T>) =>
  h.sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    await tx`set local enable_hashjoin = off`;
    await tx`set local enable_mergejoin = off`;
    return write(tx as unknown as Sql);
  }) as Promise<T>;

beforeAll(async () => {
  h = await startUsersService('batch-writes');
  userId = (await registerMember(h)).user.id as number;
});
afterAll(() => h.stop());

it('records the last use of many keys from batches flushed at once in opposite orders', async () => {
  const keys = await h.sql<{ id: number }[]>`
    insert into api_keys (user_id, name, prefix, key_hash, scopes)
    select ${userId}, 'batch ' || i, 'cp_live_b' || i, convert_to('hash-batch-' || i, 'UTF8'), '{read}'
    from generate_series(1, 60) as i returning id`;
  const at = new Date('2026-11-25T12:00:00Z');
  const forwards = keys.map((key) => ({ keyId: key.id, at }));
  const backwards = [...forwards].reverse();
  for (let round = 0; round < 10; round++)
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        asOnALargeTable((tx) => recordKeyUsage(tx, i % 2 ? backwards : forwards)),
      ),
    );
  const [row] = await h.sql<{ n: number }[]>`
    select count(*)::int as n from api_keys where user_id = ${userId} and last_used_at = ${at}`;
  expect(row!.n).toBe(60);
});
