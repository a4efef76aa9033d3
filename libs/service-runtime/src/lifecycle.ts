import { isConnectionError } from '@community/db';
import type { Logger } from '@community/logging';

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

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    try {
      await handle?.stop();
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
 * postgres.js (3.4.9) looks up array types on every new connection and drops that query's promise;
 * when the connection dies during the lookup (PostgreSQL restarting, `pg_terminate_backend`), the
 * rejection is unhandled and Node would exit. The pool reconnects by itself, so a connection error
 * is only logged. Any other unhandled rejection is rethrown: the process still dies on real bugs.
 */
export function lostConnectionRejections(logger: Logger): (reason: unknown) => void {
  return (reason) => {
    if (!isConnectionError(reason)) throw reason;
    const code = (reason as { code?: string }).code;
    logger.warn({ err: { code } }, 'a database connection was lost while it was being set up');
  };
}
