import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { contextOf, tracer } from '@community/telemetry';
import { backoffDelay, sleep } from '@community/events';
import { inTransaction, isConnectionError, type Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  cancelPending,
  claimDue,
  markEndpointOutcome,
  nextDueInMs,
  queueStats,
  recordAttempt,
  type ClaimedDelivery,
} from '../db/deliveries.repository';
import { disableEndpoint } from '../db/endpoints.repository';
import { sendWebhook } from './sender';
import { answeredInTime, SLOW_LANE_PER_ENDPOINT, slowLaneSlots } from '../domain/lanes';
import { DISABLE_AFTER_FAILING_MS, nextStep, type Next } from '../domain/retry-policy';
import type { SendResult } from '../domain/outbound';
import { signingSecrets, type SecretBox } from '../domain/secret-box';

export interface DispatcherOptions {
  sql: Sql;
  logger: Logger;
  schedule: number[];
  allowPrivate: boolean;
  /** Opens the sealed signing secrets. */
  box: SecretBox;
  registry?: Registry;
  /** At most this many attempts in flight per endpoint, across replicas (DESIGN.md §7). */
  perEndpoint?: number;
  /** At most this many attempts in flight for all endpoints of one user together, across replicas (DESIGN.md §9). */
  perUser?: number;
  maxInFlight?: number;
  /** The wait before looking again while a due delivery cannot be claimed (its caps are held elsewhere). */
  pollIntervalMs?: number;
  /**
   * The longest wait between looks while nothing is due here: what another replica queued, or the
   * lease of a replica that crashed, is found within it. Default 5 s.
   */
  idleMaxMs?: number;
  /** A claimed delivery whose attempt is never recorded (crash) is due again after this. */
  leaseSeconds?: number;
  timeoutMs?: number;
}

/**
 * Sends due deliveries. It looks when kicked (a fan-out committed, an attempt ended) and otherwise
 * sleeps until the next pending delivery is due, at most `idleMaxMs`: an idle platform does not
 * poll its database several times a second.
 *
 * Each attempt runs on its own: a slow or dead endpoint holds at most
 * `perEndpoint` attempts in flight, one user's endpoints together at most `perUser` — counted as
 * leases in the database, so across every replica — and neither ever delays the others; this process
 * runs at most `maxInFlight` at once. Endpoints whose last attempt did not answer in time are in the
 * slow lane (domain/lanes.ts): one attempt each, and a tenth of this process's slots for all of them.
 */
export class Dispatcher {
  private running = new Set<Promise<void>>();
  /** Attempts in flight here for slow-lane endpoints. */
  private slowRunning = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  /** The claim under way, if any: stop() waits for it and the attempts it starts. */
  private ticked: Promise<void> = Promise.resolve();
  private again = false;
  private started = false;
  private stopped = false;
  private readonly outcomes?: Counter<'outcome'>;
  private readonly latency?: Histogram<'outcome'>;

  constructor(private readonly opts: DispatcherOptions) {
    if (opts.registry) {
      this.outcomes = new Counter({
        name: 'webhook_attempts_total',
        help: 'Delivery attempts by outcome',
        labelNames: ['outcome'],
        registers: [opts.registry],
      });
      this.latency = new Histogram({
        name: 'webhook_attempt_duration_seconds',
        help: 'Time of one delivery attempt',
        labelNames: ['outcome'],
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [opts.registry],
      });
      // Both gauges are collected in the same scrape: they share one query.
      let inFlightStats: ReturnType<typeof queueStats> | null = null;
      const stats = () =>
        (inFlightStats ??= queueStats(opts.sql).finally(() => {
          inFlightStats = null;
        }));
      new Gauge({
        name: 'webhook_pending_deliveries',
        help: 'Deliveries waiting for an attempt',
        registers: [opts.registry],
        async collect() {
          this.set((await stats()).pending);
        },
      });
      new Gauge({
        name: 'webhook_oldest_due_seconds',
        help: 'How long the oldest due delivery has waited',
        registers: [opts.registry],
        async collect() {
          this.set((await stats()).oldestDueSeconds);
        },
      });
    }
  }

  start(): void {
    this.started = true;
    this.kick();
  }

  /** Look for due deliveries now (after a fan-out or a redelivery). */
  kick(): void {
    if (!this.started || this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    clearTimeout(this.timer);
    this.ticked = this.tick()
      .catch((err: unknown) => {
        this.opts.logger.warn({ err: { message: (err as Error).message } }, 'dispatch failed; retrying');
        return this.pollMs;
      })
      .then((waitMs) => {
        this.ticking = false;
        if (this.again) {
          this.again = false;
          this.kick();
        } else if (!this.stopped) {
          this.timer = setTimeout(() => this.kick(), waitMs).unref();
        }
      });
  }

  /**
   * Stops claiming and waits for every attempt to be recorded — those of a claim still under way
   * too: an attempt left unrecorded would be sent again once its lease ran out, a second delivery.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticked;
    await Promise.all(this.running);
  }

  private get pollMs(): number {
    return this.opts.pollIntervalMs ?? 250;
  }

  /** Claims what is due and can be sent now; resolves to how long to wait before the next look. */
  private async tick(): Promise<number> {
    const idleMaxMs = this.opts.idleMaxMs ?? 5_000;
    const maxInFlight = this.opts.maxInFlight ?? 200;
    const free = maxInFlight - this.running.size;
    if (free <= 0) return idleMaxMs; // every attempt that ends kicks
    const claimed = await inTransaction(this.opts.sql, (tx) =>
      claimDue(tx, {
        limit: free,
        perEndpoint: this.opts.perEndpoint ?? 10,
        perUser: this.opts.perUser ?? 50,
        perSlowEndpoint: SLOW_LANE_PER_ENDPOINT,
        slowLimit: Math.max(0, slowLaneSlots(maxInFlight) - this.slowRunning),
        leaseSeconds: this.opts.leaseSeconds ?? 60,
      }),
    );
    for (const delivery of claimed) this.run(delivery);
    if (claimed.length > 0) return idleMaxMs; // each of them kicks when it ends
    const dueInMs = await nextDueInMs(this.opts.sql);
    if (dueInMs === null) return idleMaxMs;
    // Due but not claimable: its endpoint's or user's slots are held, by another replica's attempts.
    if (dueInMs <= 0) return this.pollMs;
    return Math.min(Math.ceil(dueInMs) + 1, idleMaxMs);
  }

  private run(delivery: ClaimedDelivery): void {
    const slow = !delivery.fastLane;
    if (slow) this.slowRunning++;
    const work = this.attempt(delivery).finally(() => {
      this.running.delete(work);
      if (slow) this.slowRunning--;
      // Its slot is free: the next due delivery need not wait for the poll.
      this.kick();
    });
    this.running.add(work);
  }

  /** One attempt, as one span of the event's trace (DESIGN.md §15); the receiver sees none of it. */
  private attempt(delivery: ClaimedDelivery): Promise<void> {
    const span = tracer().startSpan(
      'webhook attempt',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'webhook.id': delivery.messageId,
          'webhook.endpoint.id': delivery.endpointId,
          'webhook.attempt': delivery.attempts + 1,
        },
      },
      contextOf(delivery.traceparent),
    );
    return context.with(trace.setSpan(context.active(), span), () => this.send(delivery, span));
  }

  private async send(delivery: ClaimedDelivery, span: Span): Promise<void> {
    try {
      const secrets = signingSecrets(this.opts.box, delivery);
      const result = await sendWebhook({
        url: delivery.url,
        messageId: delivery.messageId,
        body: delivery.body,
        secrets,
        allowPrivate: this.opts.allowPrivate,
        timeoutMs: this.opts.timeoutMs,
      });
      span.setAttribute('webhook.outcome', result.ok ? 'success' : 'failure');
      if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
      if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR });
      await this.record(delivery, result);
    } catch (err) {
      // The attempt could not be recorded: the lease runs out and it is tried again.
      this.opts.logger.warn(
        { deliveryId: delivery.id, err: { message: (err as Error).message } },
        'attempt not recorded',
      );
    } finally {
      span.end();
    }
  }

  private async record(delivery: ClaimedDelivery, result: SendResult): Promise<void> {
    const step = nextStep(result, delivery.attempts + 1 - delivery.roundStart, this.opts.schedule);
    this.outcomes?.inc({ outcome: step.kind });
    this.latency?.observe({ outcome: result.ok ? 'success' : 'failure' }, result.durationMs / 1000);
    await whileReconnecting(() => this.write(delivery, result, step));
  }

  /** What an attempt leaves in the database: the endpoint's health and lane, the delivery's record. */
  private async write(delivery: ClaimedDelivery, result: SendResult, step: Next): Promise<void> {
    // The lane is set before the lease ends: no claim of the endpoint's next delivery sees the old one.
    const failingSince =
      step.kind === 'gone'
        ? null
        : await markEndpointOutcome(this.opts.sql, delivery.endpointId, {
            succeeded: result.ok,
            fastLane: answeredInTime(result),
          });
    await recordAttempt(this.opts.sql, delivery, {
      status: step.kind === 'succeeded' ? 'succeeded' : step.kind === 'retry' ? 'pending' : 'failed',
      responseStatus: result.status,
      durationMs: Math.round(result.durationMs),
      error: result.error,
      nextAttemptAt: step.kind === 'retry' ? new Date(Date.now() + step.delaySeconds * 1000) : null,
    });
    if (step.kind === 'gone') await this.disable(delivery.endpointId, 'the endpoint answered 410 Gone');
    else if (failingSince && Date.now() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS)
      await this.disable(delivery.endpointId, 'no successful delivery for 5 days');
  }

  /** A disabled endpoint's backlog is cancelled with it: nothing is left that will never be sent. */
  private async disable(endpointId: number, reason: string): Promise<void> {
    await inTransaction(this.opts.sql, async (tx) => {
      await disableEndpoint(tx, endpointId, reason);
      await cancelPending(tx, endpointId);
    });
  }
}

/** How often an attempt's outcome is written again while PostgreSQL's connections come back. */
const RECONNECT_RETRIES = 6;

/**
 * `write`, again after each connection error for a few seconds (at least 6.3 in all, jittered as the
 * event consumer's retries are): an attempt whose record a dropped connection lost would otherwise
 * hold its endpoint's slot until its lease ran out (a minute), and ten such attempts stall the
 * endpoint's deliveries for that long. Every write is idempotent.
 */
async function whileReconnecting(write: () => Promise<void>): Promise<void> {
  for (let failures = 0; ; failures++) {
    try {
      return await write();
    } catch (err) {
      if (!isConnectionError(err) || failures >= RECONNECT_RETRIES) throw err;
      await sleep(backoffDelay(failures, 200, 6_400));
    }
  }
}
