import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Logger } from '@community/logging';
import { Admission } from './admission';
import { breakerState, CallerGoneError, createBreaker, StalledError, type Breaker } from './breaker';
import { FlightLine, type InLine } from '@community/workarounds';
import { forward, servicePool, type Forwarded, type ForwardOptions, type ServicePool } from './forward';
import { answersHealthz } from './liveness';
import { Streams } from './streams';
import type { UpstreamName } from './route-table';

export type { ForwardOptions } from './forward';

export interface UpstreamOptions {
  name: UpstreamName;
  target: string;
  /**
   * How long one request may wait for the answer's headers (a slow legitimate request), and for
   * each next piece of its body. Connecting counts too.
   */
  timeoutMs: number;
  /**
   * How long requests may wait with nothing at all coming back before the service is asked whether
   * it is alive; a liveness probe gets as long again. See {@link Upstream}.
   */
  stallMs?: number;
  logger: Logger;
  /** How long the breaker stays open before it lets one trial request through. */
  resetTimeoutMs?: number;
  /** DNS for the service's name: node's by default (tests stand in one that never answers). */
  lookup?: LookupFunction;
  /** At most this many requests on their way to the service at once (256); more wait their turn. */
  connections?: number;
  /** How long a request may wait for one of the service's slots (QUEUE_TIMEOUT_MS) before `503 overloaded`. */
  queueTimeoutMs?: number;
  /** A fixed bound on the requests in flight to the service (UPSTREAM_MAX_IN_FLIGHT); else adaptive. */
  maxInFlight?: number;
  /** INTERNAL_TOKEN: the service's streams go on one channel (proxy/stream-channel.ts). */
  internalToken?: string;
}

/** A request waiting on the service. */
interface InFlight extends InLine<InFlight> {
  started: number;
  resolve(): void;
  reject(err: Error): void;
  upstream?: Forwarded;
}

/** The service answered with a 5xx: a failure for the breaker, while its answer still goes out. */
class ServerErrorAnswer extends Error {}

const WATCH_INTERVAL_MS = 250;

/**
 * What a request that did not answer says about the service, for its admission: nothing when the
 * client left or the breaker refused it unsent; a failure of the service's own otherwise.
 */
function sampleOf(err: unknown): number | null {
  if (err instanceof CallerGoneError) return null;
  if ((err as { code?: string }).code === 'EOPENBREAKER') return null;
  return Infinity;
}

/**
 * One service behind the gateway: a bound on what it is sent at once (proxy/admission.ts), a
 * keep-alive proxy and one circuit breaker. The breaker counts only what the service did (DESIGN.md
 * §9): refused or reset connections, 5xx answers and no answer within `timeoutMs` fail; a 4xx or a
 * client that goes away do not.
 *
 * A stopped (not dead) process accepts connections and answers nothing, so no request fails before
 * its full `timeoutMs`. A watchdog covers that without cutting slow requests short: once a request
 * has waited `stallMs` and the service has answered nothing for as long, it probes `/healthz` on a
 * connection of its own. A service that answers it, or any request while it waits, is merely slow
 * and is left alone; one that does not is stalled: the breaker opens, every request waiting on it
 * gets its 503, and the probe repeats every 250 ms until it answers, which closes the breaker at
 * once.
 */
export class Upstream {
  readonly breaker: Breaker;
  readonly admission: Admission;
  private readonly inFlight = new FlightLine<InFlight>();
  private readonly service: ServicePool;
  private readonly streams: Streams;
  private readonly stallMs: number;
  /** The watchdog's timer, running only while there is something to watch (see {@link watchOn}). */
  private watch: NodeJS.Timeout | undefined;
  private lastAnswerAt = performance.now();
  private probing = false;
  private stalled = false;

  constructor(private readonly opts: UpstreamOptions) {
    this.stallMs = opts.stallMs ?? 1_000;
    this.service = servicePool(opts);
    this.streams = new Streams(opts);
    this.breaker = createBreaker(opts.name, opts.logger, opts.resetTimeoutMs);
    this.admission = new Admission({
      name: opts.name,
      queueTimeoutMs: opts.queueTimeoutMs ?? 200,
      maxInFlight: opts.maxInFlight,
    });
  }

  /** 0 closed, 1 half-open, 2 open. */
  get state(): number {
    return breakerState(this.breaker);
  }

  get name(): UpstreamName {
    return this.opts.name;
  }

  get retryAfterSeconds(): number {
    return Math.ceil((this.opts.resetTimeoutMs ?? 5_000) / 1000);
  }

  /**
   * Proxies the request once admitted (proxy/admission.ts); rejects (the caller answers 503) when no
   * slot freed in time, or the service is unreachable, stalled or its breaker open. A 5xx of the
   * service's own is passed on as it is (and counted).
   */
  async proxy(req: IncomingMessage, res: ServerResponse, options: ForwardOptions = {}): Promise<void> {
    const admitted = this.admission.admit(res, options.caller);
    if (admitted) {
      try {
        await admitted;
      } catch (err) {
        if (err instanceof CallerGoneError) return;
        throw err;
      }
    }
    const sentAt = performance.now();
    let latencyMs: number | null = null;
    try {
      await this.send(req, res, options);
      latencyMs = performance.now() - sentAt;
    } catch (err) {
      latencyMs = sampleOf(err);
      if (err instanceof ServerErrorAnswer || err instanceof CallerGoneError) return;
      throw err;
    } finally {
      this.admission.release(sentAt, latencyMs);
    }
  }

  /** Sends the request through the breaker: settles with the answer's head or the failure. */
  private send(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<unknown> {
    return this.breaker.fire(
      () =>
        new Promise<void>((resolve, reject) => {
          const flight: InFlight = { started: performance.now(), resolve, reject, prev: null, next: null };
          this.inFlight.add(flight);
          this.watchOn();
          flight.upstream = forward(req, res, this.service, options, {
            answered: (status, ownFault) => {
              this.lastAnswerAt = performance.now();
              this.settle(flight, status >= 500 && !ownFault ? new ServerErrorAnswer() : null);
            },
            failed: (err) => this.settle(flight, err),
          });
        }),
    );
  }

  /**
   * Relays a long-lived answer (Server-Sent Events) outside the breaker and the watchdog: resolves
   * once the service's head arrived (within `timeoutMs`), after which nothing times it out and the
   * bytes pass as they come. The service's or the client's close ends the other side. Refused at
   * once while the breaker is open.
   */
  stream(req: IncomingMessage, res: ServerResponse, options: ForwardOptions = {}): Promise<void> {
    if (this.breaker.opened)
      return Promise.reject(Object.assign(new Error('open breaker'), { code: 'EOPENBREAKER' }));
    return this.streams.relay(req, res, options);
  }

  close(): void {
    clearInterval(this.watch);
    this.watch = undefined;
    this.breaker.shutdown();
    void this.service.pool.destroy();
    void this.service.fresh?.destroy();
    this.streams.close();
  }

  private settle(flight: InFlight, err: Error | null): void {
    if (!this.inFlight.remove(flight)) return;
    if (err) flight.reject(err);
    else flight.resolve();
  }

  /**
   * Starts the watchdog: with a request in flight, it has something to watch. It stops by itself
   * once nothing is in flight and the service is not stalled, so an idle gateway is not woken four
   * times a second per service.
   */
  private watchOn(): void {
    this.watch ??= setInterval(() => this.check(), WATCH_INTERVAL_MS).unref();
  }

  private check(): void {
    if (!this.inFlight.oldest && !this.stalled && !this.probing) {
      clearInterval(this.watch);
      this.watch = undefined;
      return;
    }
    this.expire();
    if (this.probing) return;
    const now = performance.now();
    if (!this.stalled) {
      const oldest = this.inFlight.oldest;
      if (!oldest || now - oldest.started < this.stallMs || now - this.lastAnswerAt < this.stallMs) return;
    }
    this.probing = true;
    void answersHealthz(this.opts.target, this.stallMs).then((alive) => {
      this.probing = false;
      // A service that answered any request while its probe waited is slow, not stalled: on a
      // starved machine a live service's /healthz may take longer than stallMs too.
      if (!alive) {
        if (this.lastAnswerAt < now) this.stall();
        return;
      }
      this.lastAnswerAt = performance.now();
      if (this.stalled) this.recovered();
    });
  }

  /**
   * Fails the requests that have waited `timeoutMs` for an answer in any phase. The pool's timeouts
   * cover resolving, connecting and waiting for the answer, but not a wait in the pool's queue for
   * a free connection; and the watchdog does not probe while another replica keeps answering.
   */
  private expire(): void {
    const deadline = performance.now() - this.opts.timeoutMs;
    // Oldest first: stop at the first that may still wait.
    for (const flight of this.inFlight) {
      if (flight.started > deadline) return;
      this.abandon(flight, 'did not answer');
    }
  }

  /** Opens the breaker and fails whatever waits on the service, a half-open trial included. */
  private stall(): void {
    if (!this.stalled)
      this.opts.logger.warn({ upstream: this.opts.name }, 'upstream stalled: answering 503 at once');
    this.stalled = true;
    this.breaker.open();
    for (const flight of [...this.inFlight]) this.abandon(flight, 'stopped answering');
  }

  /** Fails a request waiting on the service (the caller answers 503) and cuts its connection. */
  private abandon(flight: InFlight, what: string): void {
    const err = new StalledError(`the ${this.opts.name} service ${what}`);
    this.settle(flight, err);
    flight.upstream?.abort(err);
  }

  private recovered(): void {
    this.stalled = false;
    this.breaker.close();
  }
}
