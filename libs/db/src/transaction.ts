import { ambientTx } from './ambient';
import { isConnectionError, type Sql, type Tx } from './client';

const NEVER = new Promise<never>(() => {});

/** How long a transaction whose connection failed waits for begin() to report the close. */
const CLOSE_WAIT_MS = 5_000;

/**
 * `sql.begin(work)`, safe when the transaction's connection dies under it.
 *
 * postgres.js (3.4.9) rejects `begin()` as soon as the connection of a transaction closes, but the
 * transaction's own code carries on: a query `work` sends afterwards, or the ROLLBACK (COMMIT) the
 * library sends when `work` fails (returns), is written into the closed connection. That throws
 * `TypeError: Cannot read properties of null (reading 'write')` from a setImmediate — outside any
 * promise, so the process dies — or, while the socket is still closing, leaves that pooled connection
 * stuck so later transactions on it never start. `pg_terminate_backend` on a busy pool, or a
 * PostgreSQL failover, is enough.
 *
 * So once `begin()` has settled early (it only does when the connection closed), nothing more reaches
 * the connection: a query `work` starts then never runs, and `work` never returns to the library.
 * The caller gets the connection error from `begin()` as before. Each such transaction leaves a
 * pending promise behind, unreachable once the pool has moved on. A query created before the close
 * but first awaited after it is not covered; our code awaits each query where it creates it.
 */
export async function inTransaction<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  // Inside an ambient transaction (see ambient.ts): a savepoint of it, committed with it.
  const joined = ambientTx(sql);
  if (joined) return (await joined.savepoint(work)) as T;
  let settled = false;
  let markSettled = () => {};
  const whenSettled = new Promise<void>((resolve) => (markSettled = resolve));
  const done = sql.begin(async (tx) => {
    let result: T;
    try {
      result = await work(untilClosed(tx, () => settled));
    } catch (err) {
      if (isConnectionError(err)) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          whenSettled,
          new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
        ]);
        clearTimeout(timer);
      }
      if (settled) return NEVER;
      throw err;
    }
    if (settled) return NEVER;
    return result;
  }) as Promise<T>;
  const settle = () => {
    settled = true;
    markSettled();
  };
  done.then(settle, settle);
  return done;
}

const isTemplate = (value: unknown) => Array.isArray(value) && 'raw' in value;

/** `tx` whose queries (tagged templates, `unsafe`) never start once `closed()` holds. */
function untilClosed(tx: Tx, closed: () => boolean): Tx {
  return new Proxy(tx, {
    apply(target, self, args: unknown[]) {
      if (closed() && isTemplate(args[0])) return NEVER;
      return Reflect.apply(target, self, args);
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'unsafe' || typeof value !== 'function') return value;
      return (...args: unknown[]) => (closed() ? NEVER : Reflect.apply(value, target, args));
    },
  });
}
