import CircuitBreaker from 'opossum';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@community/logging';

export type Breaker = CircuitBreaker<[() => Promise<unknown>], unknown>;

/** The caller left (client abort): nothing the upstream did, so the breaker does not count it. */
export class CallerGoneError extends Error {
  constructor() {
    super('the caller went away before the answer');
  }
}

/** The service stopped answering anything (the watchdog's finding), or a stream's head never came. */
export class StalledError extends Error {}

const BREAKER_STATE = { closed: 0, halfOpen: 1, open: 2 } as const;

/**
 * One circuit breaker over calls to a service: at least 5 calls in a 10 s window, more than half of them
 * failed, and it opens; after `resetTimeoutMs` one trial call decides whether it closes again.
 * Only what the service did counts as a failure — a caller that went away does not.
 */
export function createBreaker(name: string, logger: Logger, resetTimeoutMs = 5_000): Breaker {
  const breaker: Breaker = new CircuitBreaker((work: () => Promise<unknown>) => work(), {
    name,
    timeout: false,
    errorThresholdPercentage: 50,
    volumeThreshold: 5,
    rollingCountTimeout: 10_000,
    resetTimeout: resetTimeoutMs,
    errorFilter: (err: unknown) => err instanceof CallerGoneError,
    // Only counts decide; nothing reads latency percentiles. Left on, every second each breaker
    // joined and sorted the last 10 s of latencies (16,000 at 1,600 requests a second) to emit a
    // snapshot nobody hears.
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
  });
  breaker.on('open', () => logger.warn({ breaker: name }, 'circuit opened: upstream failing'));
  breaker.on('close', () => logger.info({ breaker: name }, 'circuit closed: upstream recovered'));
  return breaker;
}

/** 0 closed, 1 half-open, 2 open. */
export function breakerState(breaker: Breaker): number {
  return breaker.opened
    ? BREAKER_STATE.open
    : breaker.halfOpen
      ? BREAKER_STATE.halfOpen
      : BREAKER_STATE.closed;
}

/** One gauge for every breaker, read at scrape time (`upstream` names the service, or `users_keys`). */
export function registerBreakerMetrics(registry: Registry, breakers: Breaker[]): void {
  new Gauge({
    name: 'gateway_breaker_state',
    help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open',
    labelNames: ['upstream'],
    registers: [registry],
    collect() {
      for (const breaker of breakers) this.set({ upstream: breaker.name }, breakerState(breaker));
    },
  });
}
