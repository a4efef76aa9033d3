import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import CircuitBreaker from 'opossum';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@community/logging';
import type { UpstreamName } from './route-table';

export interface UpstreamOptions {
  name: UpstreamName;
  target: string;
  timeoutMs: number;
  logger: Logger;
  /** How long the breaker stays open before it lets one trial request through. */
  resetTimeoutMs?: number;
}

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
}

const BREAKER_STATE = { closed: 0, halfOpen: 1, open: 2 } as const;

/**
 * One service behind the gateway: a keep-alive proxy and one circuit breaker. Connection failures
 * and timeouts count against the breaker; once it opens, requests get a 503 at once instead of
 * waiting on a service that is down, and a trial request later closes it again.
 */
export class Upstream {
  readonly breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;
  private readonly pending = new WeakMap<IncomingMessage, Pending>();
  private readonly middleware: ReturnType<typeof createProxyMiddleware<IncomingMessage, ServerResponse>>;
  readonly agent: http.Agent;

  constructor(private readonly opts: UpstreamOptions) {
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
        proxyRes: (_proxyRes, req) => this.pending.get(req)?.resolve(),
        error: (err, req) => this.pending.get(req as IncomingMessage)?.reject(err),
      },
    });
    this.breaker = new CircuitBreaker((work: () => Promise<unknown>) => work(), {
      name: opts.name,
      timeout: false,
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
      rollingCountTimeout: 10_000,
      resetTimeout: opts.resetTimeoutMs ?? 5_000,
    });
    this.breaker.on('open', () =>
      opts.logger.warn({ upstream: opts.name }, 'circuit opened: upstream failing'),
    );
    this.breaker.on('close', () =>
      opts.logger.info({ upstream: opts.name }, 'circuit closed: upstream recovered'),
    );
  }

  /** 0 closed, 1 half-open, 2 open. */
  get state(): number {
    return this.breaker.opened
      ? BREAKER_STATE.open
      : this.breaker.halfOpen
        ? BREAKER_STATE.halfOpen
        : BREAKER_STATE.closed;
  }

  get name(): UpstreamName {
    return this.opts.name;
  }

  get retryAfterSeconds(): number {
    return Math.ceil((this.opts.resetTimeoutMs ?? 5_000) / 1000);
  }

  /** Runs any call to this service through its breaker. */
  call<T>(work: () => Promise<T>): Promise<T> {
    return this.breaker.fire(work) as Promise<T>;
  }

  /** Proxies the request; rejects (the caller answers 503) when the service is unreachable. */
  proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.call(
      () =>
        new Promise<void>((resolve, reject) => {
          this.pending.set(req, { resolve, reject });
          const next = (err?: unknown) => reject(err instanceof Error ? err : new Error('not proxied'));
          void this.middleware(req, res, next);
        }),
    );
  }

  close(): void {
    this.breaker.shutdown();
    this.agent.destroy();
  }
}

/** One gauge for every upstream's breaker, read at scrape time. */
export function registerBreakerMetrics(registry: Registry, upstreams: Upstream[]): void {
  new Gauge({
    name: 'gateway_breaker_state',
    help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open',
    labelNames: ['upstream'],
    registers: [registry],
    collect() {
      for (const upstream of upstreams) this.set({ upstream: upstream.name }, upstream.state);
    },
  });
}
