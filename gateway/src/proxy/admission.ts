import type { ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { OverloadedError } from '@community/contracts';
import { FlightLine, type InLine } from '@community/workarounds';
import { CallerGoneError } from './breaker';

export interface AdmissionOptions {
  /** The service, as a refusal names it. */
  name: string;
  /** How long a request may wait for a slot (QUEUE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  /** A fixed bound (UPSTREAM_MAX_IN_FLIGHT); without one the bound follows the service's latency. */
  maxInFlight?: number;
}

/** A request waiting for a slot. */
interface Waiter extends InLine<Waiter> {
  turn: Turn;
  /** When it began to wait. */
  since: number;
  admit(): void;
  refuse(): void;
}

/**
 * A caller's line that has not emptied for STANDING_MS stands: it sends more than its share, not a
 * burst, and waiting only adds to the latency of what gets in. Its request whose turn comes after
 * STANDING_WAIT_MS is refused then, not admitted late (CoDel's rule, per caller as in fq_codel: a
 * caller that sends little never stands).
 */
const STANDING_MS = 100;
const STANDING_WAIT_MS = 50;

/** One caller's waiting requests, oldest first; itself in a line of callers while it has any. */
interface Turn extends InLine<Turn> {
  caller: string;
  waiting: FlightLine<Waiter>;
  /** The line of callers it is in: `fresh` or `round`. */
  line: FlightLine<Turn>;
  /** When the caller's line was last empty: when its first request now waiting came. */
  since: number;
}

/**
 * What a service is sent at once (DESIGN.md §18): at most `limit` requests in flight; the next wait,
 * each for at most `queueTimeoutMs`, then are refused with `503 overloaded`. A client that leaves
 * while it waits gives up its place.
 *
 * A freed slot goes to the waiting callers in turn — the oldest request of one caller, then of the
 * next, round and round — not to whoever sent most: under overload the refusals fall on the callers
 * that send the most. A caller that had nothing waiting goes first (fq_codel's new flows), so one
 * that sends a few requests a second is never behind those that keep the line full. In a standing
 * line, a request that has waited long when its turn comes is refused (STANDING_MS).
 */
export class Admission {
  inFlight = 0;
  queued = 0;
  /** Refusals so far (the metric's total). */
  rejected = 0;
  /** Told how long each request admitted after a wait waited, in ms (the metrics' histogram). */
  onWaited: (ms: number) => void = () => {};
  /** Callers whose first request is waiting, served before the round. */
  private readonly fresh = new FlightLine<Turn>();
  /** Callers served once that still have requests waiting, the next to be served first. */
  private readonly round = new FlightLine<Turn>();
  private readonly turns = new Map<string, Turn>();
  private readonly adaptive: AdaptiveLimit | null;

  constructor(private readonly opts: AdmissionOptions) {
    this.adaptive = opts.maxInFlight === undefined ? new AdaptiveLimit() : null;
  }

  get limit(): number {
    return this.opts.maxInFlight ?? this.adaptive!.limit;
  }

  /**
   * Takes a slot: at once (nothing to wait for), or once one frees up and it is `caller`'s turn; the
   * rejection is `503 overloaded`. `caller`: who sent the request (an account, a session, an address).
   */
  admit(res: ServerResponse, caller = ''): Promise<void> | undefined {
    if (this.inFlight < this.limit && this.queued === 0) {
      this.inFlight++;
      return;
    }
    return this.wait(res, caller);
  }

  /**
   * Gives the slot back. `latencyMs`: how long the service took to answer (Infinity when it failed),
   * or null when the request says nothing about the service (the client left, the breaker refused).
   */
  release(sentAt: number, latencyMs: number | null): void {
    if (latencyMs !== null) this.adaptive?.observe(sentAt, latencyMs, this.inFlight + this.queued);
    this.inFlight--;
    const now = performance.now();
    while (this.inFlight < this.limit) {
      const turn = this.fresh.oldest ?? this.round.oldest;
      if (!turn) return;
      const next = turn.waiting.oldest!;
      this.leave(next);
      // The caller's next request, if any, waits for the other callers' turns.
      if (turn.waiting.oldest) this.moveTo(this.round, turn);
      if (now - turn.since > STANDING_MS && now - next.since > STANDING_WAIT_MS) {
        next.refuse();
        continue;
      }
      this.inFlight++;
      this.onWaited(now - next.since);
      next.admit();
    }
  }

  private wait(res: ServerResponse, caller: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const gone = () => {
        this.leave(waiter);
        clearTimeout(timer);
        reject(new CallerGoneError());
      };
      const refuse = () => {
        clearTimeout(timer);
        res.off('close', gone);
        this.rejected++;
        reject(new OverloadedError(this.opts.name));
      };
      const timer = setTimeout(() => {
        this.leave(waiter);
        refuse();
      }, this.opts.queueTimeoutMs);
      const waiter: Waiter = {
        prev: null,
        next: null,
        turn: this.turnOf(caller),
        since: performance.now(),
        admit: () => {
          clearTimeout(timer);
          res.off('close', gone);
          resolve();
        },
        refuse,
      };
      waiter.turn.waiting.add(waiter);
      this.queued++;
      res.once('close', gone);
    });
  }

  private turnOf(caller: string): Turn {
    let turn = this.turns.get(caller);
    if (!turn) {
      const since = performance.now();
      turn = { caller, waiting: new FlightLine(), line: this.fresh, since, prev: null, next: null };
      this.turns.set(caller, turn);
      this.fresh.add(turn);
    }
    return turn;
  }

  private moveTo(line: FlightLine<Turn>, turn: Turn): void {
    turn.line.remove(turn);
    line.add(turn);
    turn.line = line;
  }

  private leave(waiter: Waiter): void {
    const { turn } = waiter;
    if (!turn.waiting.remove(waiter)) return;
    this.queued--;
    if (turn.waiting.oldest) return;
    turn.line.remove(turn);
    this.turns.delete(turn.caller);
  }
}

const FLOOR = 4;
/** The request pool's connections to a service (proxy/forward.ts). */
const CEILING = 256;
const INITIAL = 32;
/** Answers per judgement: enough for a median that one slow search or ping cannot move. */
const WINDOW = 10;
/** A window's median latency beyond `TOLERANCE × baseline + SLACK_MS` means requests queue in the service. */
const TOLERANCE = 2;
/** So that a baseline of a millisecond does not read a few milliseconds of jitter as congestion. */
const SLACK_MS = 5;
/** At most halved per window. */
const DEEPEST_CUT = 0.5;
/** The baseline is the lowest window median of this period and the one before: it follows a service that got slower for good. */
const BASELINE_PERIOD_MS = 10_000;

/**
 * A bound that follows the service (additive increase, multiplicative decrease on latency): each
 * window of answers is judged by its median latency against the lowest median seen lately. Well
 * above it — requests queue inside the service — the bound is cut in proportion, at most halved;
 * a failure (no answer in time, a refused connection, a 5xx of the service's own) counts as slow
 * beyond measure, so a window mostly failing halves it. Only a full bound is cut: with slots to
 * spare, the gateway's concurrency is not what slows the service (a busy machine, one slow query),
 * and a smaller bound would only refuse requests the service could take. Otherwise, while at least
 * half of the bound is in use, it grows by one. Only answers to requests sent under the present
 * bound are judged: an older one says nothing about it.
 */
class AdaptiveLimit {
  limit = INITIAL;
  private window: number[] = [];
  private demand = 0;
  private changedAt = performance.now();
  private lowest = { current: Infinity, previous: Infinity, since: performance.now() };

  observe(sentAt: number, latencyMs: number, demand: number): void {
    if (sentAt <= this.changedAt) return;
    this.window.push(latencyMs);
    this.demand = Math.max(this.demand, demand);
    if (this.window.length < WINDOW) return;
    const median = this.window.sort((a, b) => a - b)[WINDOW >> 1]!;
    const busy = this.demand * 2 >= this.limit;
    const full = this.demand >= this.limit;
    this.window = [];
    this.demand = 0;
    const tolerated = this.baseline(median) * TOLERANCE + SLACK_MS;
    if (median > tolerated) {
      if (full) this.set(this.limit * Math.max(DEEPEST_CUT, tolerated / median));
    } else if (busy) this.set(this.limit + 1);
  }

  private baseline(median: number): number {
    const now = performance.now();
    if (now - this.lowest.since >= BASELINE_PERIOD_MS)
      this.lowest = { current: Infinity, previous: this.lowest.current, since: now };
    if (median < this.lowest.current) this.lowest.current = median;
    return Math.min(this.lowest.current, this.lowest.previous);
  }

  private set(limit: number): void {
    const clamped = Math.min(CEILING, Math.max(FLOOR, Math.floor(limit)));
    if (clamped === this.limit) return;
    this.limit = clamped;
    this.changedAt = performance.now();
  }
}

/** Each service's admission, read at scrape time. */
export function registerAdmissionMetrics(
  registry: Registry,
  upstreams: readonly { name: string; admission: Admission }[],
): void {
  const gauge = (name: string, help: string, read: (admission: Admission) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['upstream'],
      registers: [registry],
      collect() {
        for (const { name: upstream, admission } of upstreams) this.set({ upstream }, read(admission));
      },
    });
  gauge(
    'gateway_upstream_in_flight',
    'Requests sent to the upstream and not yet answered',
    (a) => a.inFlight,
  );
  gauge('gateway_upstream_concurrency_limit', 'Requests the upstream may be sent at once', (a) => a.limit);
  gauge('gateway_upstream_queued', 'Requests waiting for a slot to the upstream', (a) => a.queued);
  const waited = new Histogram({
    name: 'gateway_upstream_queue_wait_seconds',
    help: 'How long requests admitted to the upstream after a wait waited for their slot',
    labelNames: ['upstream'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2],
    registers: [registry],
  });
  for (const { name: upstream, admission } of upstreams) {
    waited.zero({ upstream });
    const labelled = waited.labels({ upstream });
    admission.onWaited = (ms) => labelled.observe(ms / 1000);
  }
  new Counter({
    name: 'gateway_upstream_rejected_total',
    help: 'Requests refused 503 overloaded after waiting QUEUE_TIMEOUT_MS for a slot to the upstream',
    labelNames: ['upstream'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { name: upstream, admission } of upstreams) this.inc({ upstream }, admission.rejected);
    },
  });
}
