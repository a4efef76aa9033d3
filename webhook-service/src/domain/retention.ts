import { EVENT_RETENTION_DAYS } from '@community/contracts';
import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { pruneOlderThan } from '../db/events.repository';
import { pruneReplays } from '../db/replays.repository';

/** How often the job runs; a run deletes in bounded batches. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Keeps the event log, the delivery log and the replays to their 30 days (DESIGN.md §14): once at
 * start, then hourly. Every replica may run it; the deletes are idempotent.
 */
export function startRetention(sql: Sql, logger: Logger, intervalMs = RETENTION_INTERVAL_MS): () => void {
  const run = async () => {
    try {
      const removed = await pruneOlderThan(sql, EVENT_RETENTION_DAYS);
      const replays = await pruneReplays(sql, EVENT_RETENTION_DAYS);
      if (removed.events + removed.deliveries + replays > 0)
        logger.info({ ...removed, replays }, 'removed events, deliveries and replays past retention');
    } catch (err) {
      logger.warn(
        { err: { message: (err as Error).message } },
        'retention run failed; the next one tries again',
      );
    }
  };
  void run();
  const timer = setInterval(() => void run(), intervalMs).unref();
  return () => clearInterval(timer);
}
