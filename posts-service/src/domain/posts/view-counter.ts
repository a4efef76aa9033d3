import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { PendingBatch } from '@community/service-runtime';
import { addViews } from '../../db/posts.repository';

/**
 * Counts detail reads in memory and adds them to `posts.views` in one statement per second. A read
 * then stays a read: writing `views` on every request rewrote five index entries per view (views is
 * in the popular and engagement indexes) and serialised readers of a hot post on its row lock.
 * A process that dies loses at most one interval of views.
 */
export class ViewCounter extends PendingBatch<number, number> {
  constructor(sql: Sql, logger: Logger, intervalMs = 1_000) {
    super({
      merge: (a, b) => a + b,
      write: (batch) => addViews(sql, batch),
      intervalMs,
      logger,
      what: 'views',
    });
  }

  /** The views of this post not written yet. */
  pendingFor(postId: number): number {
    return this.peek(postId) ?? 0;
  }

  /** Counts one view; returns the views of this post not yet written, this one included. */
  record(postId: number): number {
    return this.add(postId, 1);
  }
}
