import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { PendingBatch } from '@community/service-runtime';
import { addViews, type SeenRow } from '../../db/posts.repository';
import { visibleIn } from '../../db/snapshot';

/**
 * Counts detail reads in memory and adds them to `posts.views` in one statement per second. A read
 * then stays a read: writing `views` on every request rewrote five index entries per view (views is
 * in the popular and engagement indexes) and serialised readers of a hot post on its row lock.
 * A process that dies loses at most one interval of views.
 */
export class ViewCounter extends PendingBatch<number, number> {
  /** The transaction of the flush under way, once it has one. */
  private flushXid: bigint | null = null;

  constructor(sql: Sql, logger: Logger, intervalMs = 1_000) {
    super({
      merge: (a, b) => a + b,
      write: (batch) => {
        this.flushXid = null;
        return addViews(sql, batch, (xid) => (this.flushXid = xid));
      },
      intervalMs,
      logger,
      what: 'views',
    });
  }

  /**
   * Runs `read` of a post's row and adds the views its row does not hold: those pending, and those
   * of a flush under way that the read's snapshot does not see (its transaction is not visible in
   * it). So a read never waits for a flush, and counts each view once. A read that a flush finished
   * during runs again (three tries, then the last result stands): that flush's views were neither
   * in memory nor, maybe, in what it read.
   */
  async counted<Row extends SeenRow>(postId: number, read: () => Promise<Row | null>): Promise<Row | null> {
    for (let attempt = 1; ; attempt++) {
      const finished = this.finished;
      const row = await read();
      if (finished !== this.finished && attempt < 3) continue;
      return row && { ...row, views: row.views + this.unwritten(postId, row.snapshot) };
    }
  }

  /** Counts one view; returns the views of this post not yet written, this one included. */
  record(postId: number): number {
    return this.add(postId, 1);
  }

  private unwritten(postId: number, snapshot: string): number {
    const pending = this.peek(postId) ?? 0;
    const writing = this.writing?.get(postId) ?? 0;
    const seen = this.flushXid !== null && visibleIn(this.flushXid, snapshot);
    return pending + (seen ? 0 : writing);
  }
}
