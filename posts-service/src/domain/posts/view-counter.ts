import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';

/**
 * Counts detail reads in memory and adds them to `posts.views` in one statement per second. A read
 * then stays a read: writing `views` on every request rewrote five index entries per view (views is
 * in the popular and engagement indexes) and serialised readers of a hot post on its row lock.
 * A process that dies loses at most one interval of views.
 */
export class ViewCounter {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly intervalMs = 1_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Counts one view; returns the views of this post not yet written, this one included. */
  record(postId: number): number {
    const count = (this.pending.get(postId) ?? 0) + 1;
    this.pending.set(postId, count);
    return count;
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.sql`
          update posts p set views = p.views + v.n
          from unnest(${[...batch.keys()]}::int[], ${[...batch.values()]}::int[]) as v(id, n)
          where p.id = v.id`;
      } catch (err) {
        for (const [postId, n] of batch) this.pending.set(postId, (this.pending.get(postId) ?? 0) + n);
        this.logger.warn(
          { err: { message: (err as Error).message }, posts: batch.size },
          'views not written yet',
        );
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
