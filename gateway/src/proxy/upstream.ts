import http, { type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { Logger } from '@community/logging';
import { breakerState, CallerGoneError, createBreaker, type Breaker } from './breaker';
import { answersHealthz } from './liveness';
import type { UpstreamName } from './route-table';

export interface UpstreamOptions {
  name: UpstreamName;
  target: string;
  /** How long one request may wait for the answer's headers (a slow legitimate request). */
  timeoutMs: number;
  /**
   * How long requests may wait with nothing at all coming back before the service is asked whether
   * it is alive; a liveness probe gets as long again. See {@link Upstream}.
   */
  stallMs?: number;
  logger: Logger;
  /** How long the breaker stays open before it lets one trial request through. */
  resetTimeoutMs?: number;
}

export interface ForwardOptions {
  /** The body the gateway has read already (see http/read-body.ts), sent as is. */
  body?: Buffer;
  /** Headers for the exact path the proxy sends upstream, such as the identity signed over it. */
  headersFor?: (path: string) => Record<string, string>;
  /** Runs when the service's answer arrives, before its head is written to the client. */
  onAnswer?: (status: number) => void;
}

interface InFlight {
  started: number;
  options: ForwardOptions;
  resolve(): void;
  reject(err: Error): void;
  proxyReq?: ClientRequest;
}

type Middleware = ReturnType<typeof createProxyMiddleware<IncomingMessage, ServerResponse>>;

/** Sends the body read already and the headers signed over the path the proxy sends. */
function prepare(proxyReq: ClientRequest, { headersFor, body }: ForwardOptions): void {
  if (headersFor)
    for (const [name, value] of Object.entries(headersFor(proxyReq.path))) proxyReq.setHeader(name, value);
  if (body) {
    // The client's stream is consumed already: its pipe into proxyReq only ends it.
    proxyReq.removeHeader('transfer-encoding');
    proxyReq.setHeader('content-length', body.length);
    proxyReq.write(body);
  }
}

interface StreamFlight {
  options: ForwardOptions;
  settle(err?: Error): void;
  proxyReq?: ClientRequest;
}

/**
 * The long-lived answers of one service: a proxy with no timeout on an agent of their own (they would
 * hold the request pool's sockets for hours), whose head must come within `timeoutMs`.
 */
class Streams {
  private readonly agent = new http.Agent({ keepAlive: false });
  private readonly flights = new Map<IncomingMessage, StreamFlight>();
  private readonly middleware: Middleware;

  constructor(private readonly opts: UpstreamOptions) {
    this.middleware = createProxyMiddleware<IncomingMessage, ServerResponse>({
      target: opts.target,
      changeOrigin: false,
      xfwd: true,
      agent: this.agent,
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
      on: {
        proxyReq: (proxyReq, req) => {
          const flight = this.flights.get(req);
          if (!flight) return;
          flight.proxyReq = proxyReq;
          prepare(proxyReq, flight.options);
        },
        proxyRes: (proxyRes, req, res) => {
          const flight = this.flights.get(req);
          flight?.options.onAnswer?.(proxyRes.statusCode ?? 502);
          flight?.settle();
          // A service that dies mid-stream leaves no end to pass on: the client's answer is cut too.
          proxyRes.once('close', () => {
            if (!res.writableEnded) res.destroy();
          });
        },
        error: (err, req, res) => {
          const flight = this.flights.get(req as IncomingMessage);
          if (flight) flight.settle(err);
          if ((res as ServerResponse).headersSent) (res as ServerResponse).destroy();
        },
      },
    });
  }

  relay(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const flight: StreamFlight = {
        options,
        settle: (err) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err) {
            flight.proxyReq?.destroy();
            reject(err);
          } else resolve();
        },
      };
      const timer = setTimeout(
        () => flight.settle(new StalledError(`the ${this.opts.name} service did not answer`)),
        this.opts.timeoutMs,
      );
      this.flights.set(req, flight);
      // Whoever leaves first, the other side goes too: a client gone frees the service's stream.
      res.once('close', () => {
        this.flights.delete(req);
        flight.proxyReq?.destroy();
        flight.settle();
      });
      void this.middleware(req, res, (err?: unknown) =>
        flight.settle(err instanceof Error ? err : new Error('not proxied')),
      );
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The service answered with a 5xx: a failure for the breaker, while its answer still goes out. */
class ServerErrorAnswer extends Error {}

/** The service stopped answering anything (the watchdog's finding). */
class StalledError extends Error {}

const WATCH_INTERVAL_MS = 250;

/**
 * One service behind the gateway: a keep-alive proxy and one circuit breaker. The breaker counts
 * only what the service did (DESIGN.md §9): refused or reset connections, 5xx answers and no answer
 * within `timeoutMs` fail; a 4xx or a client that goes away do not.
 *
 * A stopped (not dead) process accepts connections and answers nothing, so no request fails before
 * its full `timeoutMs`. A watchdog covers that without cutting slow requests short: once a request
 * has waited `stallMs` and the service has answered nothing for as long, it probes `/healthz` on a
 * connection of its own. A service that answers is merely slow and is left alone; one that does
 * not is stalled: the breaker opens, every request waiting on it gets its 503, and the probe
 * repeats every 250 ms until it answers, which closes the breaker at once.
 */
export class Upstream {
  readonly breaker: Breaker;
  private readonly inFlight = new Map<IncomingMessage, InFlight>();
  private readonly middleware: Middleware;
  readonly agent: http.Agent;
  private readonly streams: Streams;
  private readonly stallMs: number;
  private readonly watch: NodeJS.Timeout;
  private lastAnswerAt = performance.now();
  private probing = false;
  private stalled = false;

  constructor(private readonly opts: UpstreamOptions) {
    this.stallMs = opts.stallMs ?? 1_000;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
    this.middleware = createProxyMiddleware<IncomingMessage, ServerResponse>({
      target: opts.target,
      changeOrigin: false,
      xfwd: true,
      agent: this.agent,
      proxyTimeout: opts.timeoutMs,
      // The default logger plugin costs ~2% of the gateway's CPU per proxied request to log nothing
      // (its logger is a no-op); the access log already records every request.
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
      on: {
        proxyReq: (proxyReq, req) => this.sending(proxyReq, req),
        proxyRes: (proxyRes, req) => {
          this.lastAnswerAt = performance.now();
          const status = proxyRes.statusCode ?? 502;
          this.inFlight.get(req)?.options.onAnswer?.(status);
          this.settle(req, status >= 500 ? new ServerErrorAnswer() : null);
        },
        error: (err, req) => this.settle(req as IncomingMessage, err),
      },
    });
    this.streams = new Streams(opts);
    this.breaker = createBreaker(opts.name, opts.logger, opts.resetTimeoutMs);
    this.watch = setInterval(() => this.check(), WATCH_INTERVAL_MS).unref();
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
   * Proxies the request; rejects (the caller answers 503) when the service is unreachable, stalled
   * or its breaker open. A 5xx of the service's own is passed on as it is (and counted).
   */
  async proxy(req: IncomingMessage, res: ServerResponse, options: ForwardOptions = {}): Promise<void> {
    try {
      await this.breaker.fire(
        () =>
          new Promise<void>((resolve, reject) => {
            this.inFlight.set(req, { started: performance.now(), options, resolve, reject });
            // 'close' follows every answer: only one still in flight means the caller left (an
            // Error per request would cost a stack trace each time).
            res.once('close', () => {
              if (this.inFlight.has(req)) this.settle(req, new CallerGoneError());
            });
            void this.middleware(req, res, (err?: unknown) =>
              this.settle(req, err instanceof Error ? err : new Error('not proxied')),
            );
          }),
      );
    } catch (err) {
      if (err instanceof ServerErrorAnswer || err instanceof CallerGoneError) return;
      throw err;
    }
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
    this.breaker.shutdown();
    this.agent.destroy();
    this.streams.close();
  }

  private sending(proxyReq: ClientRequest, req: IncomingMessage): void {
    const flight = this.inFlight.get(req);
    if (!flight) return;
    flight.proxyReq = proxyReq;
    prepare(proxyReq, flight.options);
  }

  private settle(req: IncomingMessage, err: Error | null): void {
    const flight = this.inFlight.get(req);
    if (!flight) return;
    this.inFlight.delete(req);
    if (err) flight.reject(err);
    else flight.resolve();
  }

  private check(): void {
    if (this.probing) return;
    const now = performance.now();
    if (!this.stalled) {
      // Map order is arrival order: the first entry has waited longest.
      const oldest = this.inFlight.values().next().value;
      if (!oldest || now - oldest.started < this.stallMs || now - this.lastAnswerAt < this.stallMs) return;
    }
    this.probing = true;
    void answersHealthz(this.opts.target, this.stallMs).then((alive) => {
      this.probing = false;
      if (!alive) return this.stall();
      this.lastAnswerAt = performance.now();
      if (this.stalled) this.recovered();
    });
  }

  /** Opens the breaker and fails whatever waits on the service, a half-open trial included. */
  private stall(): void {
    if (!this.stalled)
      this.opts.logger.warn({ upstream: this.opts.name }, 'upstream stalled: answering 503 at once');
    this.stalled = true;
    this.breaker.open();
    for (const [req, flight] of [...this.inFlight]) {
      this.settle(req, new StalledError(`the ${this.opts.name} service stopped answering`));
      flight.proxyReq?.destroy();
    }
  }

  private recovered(): void {
    this.stalled = false;
    this.breaker.close();
  }
}
