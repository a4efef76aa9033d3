import { Lease, RETURN_MARGIN_MS, type Caps, type Counted } from './lease';
import type { Grant, RedisCounters, RedisCounter } from './redis-counters';

export interface LeaseOptions {
  /** The most requests one lease holds (32). 1: every request asks Redis. */
  maxSlice?: number;
  /** A lease takes at most 1/share of what the tightest window has left, but 1 while it has any (64). */
  share?: number;
  /** How long a lease serves before what is left of it goes back to Redis (1 s). */
  ttlMs?: number;
}

/** A lease call in flight: how many points it is expected to bring, and how many requests wait on it. */
interface Call {
  windows: RedisCounter[];
  expect: number;
  claims: number;
  /** Settles once its points are in the holding's lease, or with the windows' answer if none were granted. */
  done: Promise<Counted[] | null>;
}

interface Owed {
  points: number;
  until: number;
}

/** What this process holds of one subject's budget. */
interface Holding {
  lease: Lease | null;
  /** The windows last asked about: where owed points go back to. */
  windows: RedisCounter[];
  /** Points of ended leases not given back yet, per window, and until when each may be. */
  owed: Owed[];
  /** How big the next lease should be: doubles while leases run out before their time. */
  want: number;
  /** What the tightest window had left at the last answer (bounds what a lease can bring). */
  room: number;
  call: Call | null;
  touched: number;
}

export type Taken = { counted: Counted[]; lease: Lease | null };

/**
 * Each subject's budget leased from Redis in small slices per process, so a busy account's
 * requests mostly make no Redis call at all (issue 22), within a stated bound (README, "Limits
 * across gateways"):
 *
 * - Nobody is served more than a window's cap, whatever the number of gateways: a lease is taken
 *   from every window at once, in one script, and only from what is left.
 * - A lease holds at most `maxSlice` points, and at most 1/`share` of what the tightest window had
 *   left: with fewer than 2 × share left (every free account), requests are counted one by one.
 * - A request may be refused while other processes hold leased points unused: at most
 *   (processes − 1) × maxSlice. A lease serves for `ttlMs`; what is left of it then goes back to
 *   Redis within another ttlMs (and at shutdown). One gateway process alone is exact.
 * - Leases grow from 1 point, doubling while they run out before their time (slow start), and
 *   shrink to what the last one served when it outlived its use: a quiet account asks Redis per
 *   request, as without leases, and holds nothing unused.
 */
export class Leases {
  private readonly held = new Map<string, Holding>();
  private readonly maxSlice: number;
  private readonly share: number;
  private readonly ttlMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisCounters,
    options: LeaseOptions = {},
  ) {
    this.maxSlice = options.maxSlice ?? 32;
    this.share = options.share ?? 64;
    this.ttlMs = options.ttlMs ?? 1_000;
    this.sweeper = setInterval(() => this.sweep(Date.now()), this.ttlMs / 2);
    this.sweeper.unref();
  }

  /**
   * Counts one request of `subject` in its windows: from this process's lease when it has points,
   * else from a lease call (joining one in flight that is expected to bring a point for it).
   * Rejects when Redis fails the call.
   */
  async take(subject: string, windows: RedisCounter[]): Promise<Taken> {
    const holding = this.holding(subject, windows);
    for (;;) {
      const taken = this.fromLease(holding, windows);
      if (taken) return taken;
      const now = Date.now();
      let call = holding.call;
      if (!call || call.claims >= call.expect || !sameCaps(call.windows, windows))
        call = this.send(holding, windows, now);
      call.claims++;
      const refused = await call.done;
      // A grant of another call may have come in meanwhile: refused only when nothing is left here.
      if (refused && !this.usable(holding, windows, Date.now())) return { counted: refused, lease: null };
    }
  }

  /** Counts one request from this process's lease, at once, if it has points for it: else null. */
  takeHeld(subject: string, windows: Caps): Taken | null {
    const holding = this.held.get(subject);
    return holding ? this.fromLease(holding, windows) : null;
  }

  /** Gives a request served from `lease` back to it, if it is still this process's: false if not. */
  giveBack(subject: string, lease: Lease): boolean {
    const holding = this.held.get(subject);
    if (holding?.lease !== lease || Date.now() >= lease.expiresAt) return false;
    lease.left++;
    return true;
  }

  /** Points of the subject this process holds and has not handed out: counted in Redis, not used. */
  unused(subject: string): number {
    const lease = this.held.get(subject)?.lease;
    return lease && Date.now() < lease.expiresAt ? lease.left : 0;
  }

  /** Gives every unused point back (at shutdown): another gateway may hand them out. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.sweep(Number.POSITIVE_INFINITY));
  }

  private holding(subject: string, windows: RedisCounter[]): Holding {
    let holding = this.held.get(subject);
    if (!holding) {
      holding = {
        lease: null,
        windows,
        owed: [],
        want: 1,
        room: Infinity,
        call: null,
        touched: 0,
      };
      this.held.set(subject, holding);
    }
    return holding;
  }

  private fromLease(holding: Holding, windows: Caps): Taken | null {
    const now = Date.now();
    holding.touched = now;
    const lease = this.usable(holding, windows, now);
    return lease ? { counted: lease.take(now), lease } : null;
  }

  private usable(holding: Holding, windows: Caps, now: number): Lease | null {
    const { lease } = holding;
    return lease && lease.left > 0 && lease.serves(windows, now) ? lease : null;
  }

  private send(holding: Holding, windows: RedisCounter[], now: number): Call {
    const old = holding.lease;
    if (old) {
      if (old.left === 0 && now < old.expiresAt) holding.want = Math.min(this.maxSlice, holding.want * 2);
      else if (now >= old.expiresAt) holding.want = this.served(old);
      this.retire(holding, old, now);
      holding.lease = null;
    }
    const want = holding.want;
    const back = this.repay(holding, now);
    holding.windows = windows;
    const call: Call = {
      windows,
      expect: Math.max(1, Math.min(want, Math.floor(holding.room / this.share))),
      claims: 0,
      done: this.redis
        .lease(windows, want, this.share, back)
        .then((grant) => this.granted(holding, windows, grant, now))
        .finally(() => {
          if (holding.call === call) holding.call = null;
        }),
    };
    holding.call = call;
    return call;
  }

  /**
   * The size of the next slice after `lease` outlived its use: what it served, never above
   * `maxSlice` (a lease that took in a second grant while it still had points holds more).
   */
  private served(lease: Lease): number {
    return Math.max(1, Math.min(this.maxSlice, lease.points - lease.left));
  }

  /** Puts a grant's points in the holding's lease; answers the windows' refusal when there were none. */
  private granted(holding: Holding, windows: RedisCounter[], grant: Grant, sentAt: number): Counted[] | null {
    const spans = windows.map((w, i) => ({
      limit: w.limit,
      count: grant.windows[i]!.count,
      end: sentAt + grant.windows[i]!.msLeft,
    }));
    holding.room = Math.min(...spans.map((s) => s.limit - s.count));
    const now = Date.now();
    if (grant.points === 0) {
      // Nothing taken: a full window shows 0 left, the other what it has.
      return spans.map((s) => ({
        ok: s.count < s.limit,
        remaining: Math.max(0, s.limit - s.count),
        msLeft: s.end - now,
      }));
    }
    const fresh = new Lease(spans, grant.points, Math.min(sentAt + this.ttlMs, ...spans.map((s) => s.end)));
    const current = holding.lease;
    if (current && current.left > 0 && current.absorb(fresh)) return null;
    if (current) this.retire(holding, current, now);
    holding.lease = fresh;
    return null;
  }

  /**
   * Ends a lease: its unused points are owed back to each window it was leased from, while that
   * window lasts (a daily window outlives the hourly one).
   */
  private retire(holding: Holding, lease: Lease, now: number): void {
    if (lease.left > 0)
      lease.spans.forEach((span, i) => {
        const until = span.end - RETURN_MARGIN_MS;
        if (now >= until) return;
        const owed = holding.owed[i];
        holding.owed[i] = owed?.points
          ? { points: owed.points + lease.left, until: Math.min(owed.until, until) }
          : { points: lease.left, until };
      });
    lease.left = 0;
  }

  /** What the holding owes each window and may still give back; owes nothing after. */
  private repay(holding: Holding, now: number): number[] {
    const back = Array.from(holding.windows, (_, i) => {
      const owed = holding.owed[i];
      return owed && now < owed.until ? owed.points : 0;
    });
    holding.owed = [];
    return back;
  }

  /** Ends the leases past their time, gives their unused points back, forgets quiet subjects. */
  private sweep(now: number): Promise<unknown>[] {
    const returns: Promise<unknown>[] = [];
    for (const [subject, holding] of this.held) {
      if (holding.call) continue;
      const { lease } = holding;
      if (lease && now >= lease.expiresAt) {
        holding.want = this.served(lease);
        this.retire(holding, lease, Date.now());
        holding.lease = null;
      }
      const back = this.repay(holding, Date.now());
      if (back.some((points) => points > 0))
        returns.push(this.redis.lease(holding.windows, 0, this.share, back).catch(() => undefined));
      if (!holding.lease && now - holding.touched > this.ttlMs) this.held.delete(subject);
    }
    return returns;
  }
}

const sameCaps = (a: RedisCounter[], b: RedisCounter[]) =>
  a.length === b.length && a.every((w, i) => w.limit === b[i]!.limit);
