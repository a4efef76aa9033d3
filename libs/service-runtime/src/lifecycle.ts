import { isConnectionError } from '@community/db';
import type { Logger } from '@community/logging';
import { stopTracing } from '@community/telemetry';
import { keepTickObjectShape } from '@community/workarounds';

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Runs a service process: start it, and on SIGTERM/SIGINT stop it (drain, close pools) and exit 0.
 * A failure to start prints one line, never a stack trace, and exits 1.
 */
export function runService(name: string, logger: Logger, start: () => Promise<Stoppable>): void {
  let handle: Stoppable | undefined;
  let stopping = false;
  // Node's stream code stays as fast after an idle spell as before it (see @community/workarounds, tick-shape.ts).
  keepTickObjectShape();

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    try {
      await handle?.stop();
      await stopTracing();
      logger.info(`${name} stopped`);
      logger.flush();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, `${name} did not stop cleanly`);
      logger.flush();
      process.exit(1);
    }
  };
  process.on('unhandledRejection', lostConnectionRejections(logger));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  start().then(
    (started) => {
      handle = started;
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`${name} could not start: ${message}\n`);
      process.exit(1);
    },
  );
}

/**
 * An `unhandledRejection` listener that survives one known driver fault and nothing else.
 *
 * postgres.js (3.4.9) looks up array types on every new connection and drops that query's promise
 * (porsager/postgres#1192). Its rejection is unhandled and Node would exit when the connection dies
 * during the lookup (PostgreSQL restarting, `pg_terminate_backend`) — the pool reconnects by itself
 * — or when the lookup is cancelled (a `statement_timeout` set for the role or the database, on a
 * database too busy to answer in time; `pg_cancel_backend`): the connection serves on, and the next
 * one looks the types up again. Either is only logged. posts-service's search pool, whose connections
 * start with a statement timeout, declares its array types and never looks them up. Any other
 * unhandled rejection is rethrown: the process still dies on real bugs.
 */
export function lostConnectionRejections(logger: Logger): (reason: unknown) => void {
  return (reason) => {
    if (isConnectionError(reason)) {
      const code = (reason as { code?: string }).code;
      logger.warn({ err: { code } }, 'a database connection was lost while it was being set up');
      return;
    }
    if (isCancelledTypeLookup(reason)) {
      logger.warn({ err: { code: QUERY_CANCELED } }, "a new connection's array type lookup ran out of time");
      return;
    }
    throw reason;
  };
}

/** PostgreSQL's query_canceled: a statement timeout, or pg_cancel_backend. */
const QUERY_CANCELED = '57014';

/** postgres.js's own array type lookup (its `query` names the catalog it reads), cancelled. */
function isCancelledTypeLookup(reason: unknown): boolean {
  const { code, query } = (reason ?? {}) as { code?: unknown; query?: unknown };
  return code === QUERY_CANCELED && typeof query === 'string' && /\bfrom pg_catalog\.pg_type a\b/.test(query);
}
