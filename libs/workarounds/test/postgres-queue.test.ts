import fs from 'node:fs';
import path from 'node:path';
import { createDb, type Sql } from '@community/db';
import { testInfra } from '@community/test-harness';

/**
 * The canary of patches/postgres+3.4.9.patch (applied by patch-package on install, and in the image
 * build). Why: postgres.js 3.4.9 keeps each of a pool's queues (idle, busy, …) in an array, and
 * taking a connection from one leaves its slot behind until that queue runs empty; moving a
 * connection on searches the whole array. A pool under steady load, below or above its size, so
 * searched a longer array at every query, and CPU per query grew with the time it had been busy.
 * bench/RESULTS.md, "postgres.js's pool queues grew with every query". The patch searches only the
 * queued slots and drops the others once they are half of the array.
 */

const ROOT = path.join(__dirname, '..', '..', '..');
/** The file patch-package patched, as the services' CommonJS build loads it. */
const QUEUE = path.join(ROOT, 'node_modules', 'postgres', 'cjs', 'src', 'queue.js');
const PATCH = path.join(ROOT, 'patches', 'postgres+3.4.9.patch');

/** The patch's hunks for `file`, each as the text it replaces and the text it puts there. */
function hunks(file: string): { before: string; after: string }[] {
  const diff = fs.readFileSync(PATCH, 'utf8').split(/^diff --git /m);
  const part = diff.find((d) => d.startsWith(`a/node_modules/postgres/${file} `));
  if (!part) throw new Error(`the patch changes no ${file}`);
  return part
    .split(/^@@.*@@.*$/m)
    .slice(1)
    .map((hunk) => {
      const lines = hunk.replace(/^\n/, '').replace(/\n$/, '').split('\n');
      const side = (drop: string) =>
        lines
          .filter((l) => !l.startsWith(drop))
          .map((l) => l.slice(1))
          .join('\n');
      return { before: side('+'), after: side('-') };
    });
}

type Queue = { push(x: unknown): unknown; shift(): unknown; remove(x: unknown): unknown };

/** postgres.js's `Queue` as it is published, the patch undone in a copy of the installed file. */
function unpatchedQueue(): (initial?: unknown[]) => Queue {
  let source = fs.readFileSync(QUEUE, 'utf8');
  for (const { before, after } of hunks('cjs/src/queue.js')) {
    expect(source).toContain(after);
    source = source.replace(after, before);
  }
  const module = { exports: {} as unknown };
  new Function('module', source)(module);
  return module.exports as (initial?: unknown[]) => Queue;
}

/** The longest array `queue.remove` searched while a queue never ran empty for `rounds` moves. */
function longestSearchOfBusyQueue(makeQueue: (initial?: unknown[]) => Queue, rounds: number): number {
  const queue = makeQueue();
  const items = Array.from({ length: 4 }, (_, i) => ({ i }));
  items.forEach((item) => queue.push(item));
  const indexOf = Array.prototype.indexOf;
  let longest = 0;
  Array.prototype.indexOf = function (this: unknown[], ...args: [unknown, number?]) {
    if (items.includes(args[0] as { i: number })) longest = Math.max(longest, this.length - (args[1] ?? 0));
    return indexOf.apply(this, args);
  };
  try {
    for (let n = 0; n < rounds; n++) {
      // As the pool does: take the oldest connection, give it back at the end, once in a while
      // moving one out of the middle.
      queue.push(queue.shift());
      if (n % 10 === 0) queue.push(queue.remove(items[n % items.length]));
    }
  } finally {
    Array.prototype.indexOf = indexOf;
  }
  return longest;
}

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

describe("postgres.js's queue, published and patched", () => {
  it('published, a queue that never runs empty searches a longer array at every move', () => {
    // Should a later postgres.js no longer do this, this fails: the patch is then no longer needed.
    expect(longestSearchOfBusyQueue(unpatchedQueue(), 3_000)).toBeGreaterThan(2_000);
  });

  it('patched, it searches as much at the 3,000th move as at the first', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(longestSearchOfBusyQueue(require(QUEUE), 3_000)).toBeLessThan(100);
  });
});

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
