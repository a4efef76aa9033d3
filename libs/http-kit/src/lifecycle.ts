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
