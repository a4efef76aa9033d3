import { isConnectionError, type Sql, type Tx } from './client';

const NEVER = new Promise<never>(() => {});

/** How long a transaction whose connection failed waits for begin() to report the close. */
const CLOSE_WAIT_MS = 5_000;

/**
 * `sql.begin(work)`, safe when the transaction's connection dies under it.
 *
 * postgres.js (3.4.9) rejects `begin()` once the connection of a transaction has closed, but the
 * transaction's own code carries on: when `work` fails it writes ROLLBACK (when it succeeds, COMMIT)
 * into the closed connection, which either throws `TypeError: Cannot read properties of null (reading
 * 'write')` from a setImmediate — outside any promise, so the process dies — or, when the socket is
 * still closing, leaves that pooled connection stuck so later transactions on it never start.
 * `pg_terminate_backend` on a busy pool or a PostgreSQL failover is enough to trigger either.
 *
 * So after a connection error `work` waits for `begin()` to settle (it does within milliseconds when
 * the connection closed) and then never returns, and the library never sends anything more on that
 * connection; the caller gets the connection error from `begin()` as before. Each such transaction
 * leaves one pending promise behind, unreachable once the pool has moved on.
 */
export async function inTransaction<T>(sql: Sql, work: (tx: Tx) => Promise<T>): Promise<T> {
  let settled = false;
  let markSettled = () => {};
  const whenSettled = new Promise<void>((resolve) => (markSettled = resolve));
  const done = sql.begin(async (tx) => {
    let result: T;
    try {
      result = await work(tx);
    } catch (err) {
      if (isConnectionError(err)) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          whenSettled,
          new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
        ]);
        clearTimeout(timer);
        if (settled) return NEVER;
      }
      throw err;
    }
    // work swallowed a connection error: same thing, no COMMIT into a closed connection.
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
