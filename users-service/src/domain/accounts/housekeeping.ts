import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { deleteExpiredSessions } from '../../db/sessions.repository';
import { pruneFormTokens } from '../../db/form-tokens.repository';
import { pruneMentionQuota } from '../../db/mention-quota.repository';
import { pruneOAuth } from '../../db/oauth-grants.repository';
import { pruneThrottle } from '../../db/throttle.repository';

const LONGEST_WINDOW_SECONDS = 3600;

/**
 * Deletes expired sessions, throttle events outside every window, old form tokens, long-expired
 * OAuth codes and tokens and past days' mention counts, every few minutes.
 */
export class Housekeeping {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly intervalMs = 5 * 60_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
  }

  async run(): Promise<void> {
    try {
      await deleteExpiredSessions(this.sql);
      await pruneThrottle(this.sql, LONGEST_WINDOW_SECONDS);
      await pruneFormTokens(this.sql, 7 * 86_400);
      await pruneOAuth(this.sql);
      await pruneMentionQuota(this.sql);
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'housekeeping failed; will retry');
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
