import { createDb, type Sql } from '@community/db';
import { testInfra } from '@community/test-harness';

/**
 * postgres.js 3.4.9 keeps each of a pool's queues (idle, busy, …) in an array, and taking a
 * connection from one leaves its slot behind until that queue runs empty; moving the connection on
 * then searches the whole array for it. A pool whose idle queue never runs empty — any steady load
 * below its size — or whose busy queue never does — any load above it — searched an array one slot
 * longer for every query: CPU per query grew with the time the service had been busy (37 to 133 µs
 * a `select 1` within 21 s), and memory with it. patches/postgres+3.4.9.patch, applied by
 * patch-package on install, searches only the queued slots and drops the others once they are half
 * of the array. These tests fail without it.
 */

/** Connections as postgres.js makes them: what the pool's queues hold. */
const isConnection = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'queue' in value && 'execute' in value;

/**
 * Runs `work` and tells the longest array the pool searched for a connection meanwhile (the queues
 * search with Array#indexOf; nothing else here looks for a connection).
 */
async function longestSearch(work: () => Promise<void>): Promise<number> {
  const indexOf = Array.prototype.indexOf;
  let longest = 0;
  Array.prototype.indexOf = function (this: unknown[], ...args: [unknown, number?]) {
    if (isConnection(args[0])) longest = Math.max(longest, this.length);
    return indexOf.apply(this, args);
  };
  try {
    await work();
  } finally {
    Array.prototype.indexOf = indexOf;
  }
  return longest;
}

/** `callers` loops each sending one query at a time until `total` have been answered, each checked. */
async function steadyLoad(sql: Sql, callers: number, total: number): Promise<void> {
  let sent = 0;
  const caller = async () => {
    while (sent < total) {
      const n = sent++;
      const [row] = await sql<{ n: number }[]>`select ${n}::int as n`;
      expect(row!.n).toBe(n);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
}

/** A pool of `max` connections, every one of them opened and idle. */
async function warmPool(max: number): Promise<Sql> {
  const sql = createDb(testInfra().pgUrl, { schema: 'public', max });
  await Promise.all(Array.from({ length: max }, () => sql`select pg_sleep(0.05)`));
  return sql;
}

describe('the connection pool under steady load', () => {
  it.each([
    ['below its size (its idle queue never empty)', 10, 3],
    ['above its size (its busy queue never empty)', 4, 32],
  ])('%s: searches as much on the 3,000th query as on the first', async (_, max, callers) => {
    const sql = await warmPool(max);
    try {
      // Unpatched, that queue's array grows by one slot a query: ~3,000 here.
      expect(await longestSearch(() => steadyLoad(sql, callers, 3_000))).toBeLessThan(100);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
