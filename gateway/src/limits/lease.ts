import type { RedisCounter } from './redis-counters';

/** One window's answer to a request: within the cap or not, what it shows left, until when. */
export interface Counted {
  ok: boolean;
  remaining: number;
  msLeft: number;
}

/** What a lease is checked against: each window's cap, in order. */
export type Caps = readonly Pick<RedisCounter, 'limit'>[];

/** Unused points are given back only this long before their window ends: later, it may be the next one. */
export const RETURN_MARGIN_MS = 1_000;

/** One window as a lease saw it: its cap, its counter in Redis after the grant, when it resets. */
interface Span {
  limit: number;
  count: number;
  /** Date.now() at which the window resets (measured from when the lease was asked for: never late). */
  end: number;
}

/** Points of a subject's budget this process took from Redis and hands out itself. */
export class Lease {
  left: number;

  constructor(
    readonly spans: Span[],
    public points: number,
    public expiresAt: number,
  ) {
    this.left = points;
  }

  /** Whether it may serve a request under these caps at `now` (a plan change ends it at once). */
  serves(windows: Caps, now: number): boolean {
    return (
      now < this.expiresAt &&
      windows.length === this.spans.length &&
      windows.every((w, i) => w.limit === this.spans[i]!.limit)
    );
  }

  /** Hands out one point: every window shows what it has left after it. */
  take(now: number): Counted[] {
    this.left--;
    return this.spans.map((s) => ({
      ok: true,
      remaining: s.limit - (s.count - this.left),
      msLeft: s.end - now,
    }));
  }

  /** Takes in a grant of the same windows that came back while this one still had points. */
  absorb(other: Lease): boolean {
    const same = this.spans.every(
      (s, i) => s.limit === other.spans[i]!.limit && Math.abs(s.end - other.spans[i]!.end) < RETURN_MARGIN_MS,
    );
    if (!same) return false;
    this.spans.forEach((s, i) => (s.count = Math.max(s.count, other.spans[i]!.count)));
    this.points += other.points;
    this.left += other.left;
    this.expiresAt = Math.max(this.expiresAt, other.expiresAt);
    return true;
  }
}
