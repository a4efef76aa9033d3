import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql, Tx } from './client';

/**
 * One transaction that whatever runs inside it joins: the pool's queries go to it, a transaction
 * opened inside becomes a savepoint of it, and after-commit hooks wait for its commit. It is how an
 * idempotent request records its key in the very transaction of its write (DESIGN.md §10) without
 * the use case knowing.
 */
interface Ambient {
  base: Sql;
  tx: Tx;
  afterCommit: (() => void)[];
  /** Until `work` is done: a timer or promise started inside must not reach a finished transaction. */
  open: boolean;
}

/**
 * Tracked only while an ambient transaction is open: on Node 20 an enabled `AsyncLocalStorage`
 * hooks every promise the process makes (bench/RESULTS.md, "Services: the log context's
 * `AsyncLocalStorage` cost every request"). Disabled again once the last one ends; `open` guards
 * whatever outlives it.
 */
const storage = new AsyncLocalStorage<Ambient>();
let running = 0;
const bases = new WeakMap<Sql, Sql>();

const baseOf = (sql: Sql) => bases.get(sql) ?? sql;

/** The transaction `sql`'s queries belong to here, if an ambient one is open for that pool. */
export function ambientTx(sql: Sql): Tx | undefined {
  const current = storage.getStore();
  return current?.open && current.base === baseOf(sql) ? current.tx : undefined;
}

/**
 * `sql` whose queries run in the ambient transaction when there is one for it, and on the pool
 * otherwise. Services hand this to their use cases; nothing changes where no ambient one is open.
 */
export function joinable(sql: Sql): Sql {
  // A function whose prototype is the pool, not a Proxy of it: a query called through a Proxy keeps
  // its garbage alive past the next scavenge (bench/RESULTS.md, "The post read without a Proxy or
  // fragments").
  const join = ((...args: Parameters<Sql>) => (ambientTx(sql) ?? sql)(...args)) as Sql;
  Object.setPrototypeOf(join, sql);
  Object.defineProperties(join, {
    unsafe: {
      get: () => {
        const tx = ambientTx(sql);
        return tx ? tx.unsafe.bind(tx) : sql.unsafe;
      },
    },
    begin: {
      get: () => {
        const tx = ambientTx(sql);
        return tx ? (work: (tx: Tx) => Promise<unknown>) => tx.savepoint(work) : sql.begin;
      },
    },
  });
  bases.set(join, sql);
  return join;
}

/** Runs `work` with `tx` as the ambient transaction of `sql`'s pool; returns the after-commit hooks. */
export async function withAmbient<T>(
  sql: Sql,
  tx: Tx,
  work: () => Promise<T>,
): Promise<{ result: T; afterCommit: (() => void)[] }> {
  const ambient: Ambient = { base: baseOf(sql), tx, afterCommit: [], open: true };
  running++;
  try {
    return { result: await storage.run(ambient, work), afterCommit: ambient.afterCommit };
  } finally {
    ambient.open = false;
    if (--running === 0) storage.disable();
  }
}

/** Runs `hook` after the ambient transaction of `sql` commits, or now when there is none. */
export function afterCommit(sql: Sql, hook: () => void): void {
  const current = storage.getStore();
  if (current?.open && current.base === baseOf(sql)) current.afterCommit.push(hook);
  else hook();
}
