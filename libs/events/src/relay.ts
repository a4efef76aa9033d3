import { context } from '@opentelemetry/api';
import { inTransaction, type Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { contextOf } from '@community/telemetry';
import type { Counter, Registry } from 'prom-client';
import { backoffDelay, errorMessage } from './backoff';
import type { AmqpConnection } from './connection';
import { serializeEnvelope, type EventEnvelope } from './envelope';
import { counter, gauge } from './metrics';
import { declareExchange } from './topology';

export interface OutboxRelayOptions {
  sql: Sql;
  amqp: AmqpConnection;
  exchange: string;
  logger: Logger;
  /**
   * The wait after a batch that emptied the outbox (default 5 s). Every commit of this process kicks
   * the relay, so this only finds rows no kick announced: those of a replica that died between its
   * commit and its kick.
   */
  pollIntervalMs?: number;
  batchSize?: number;
  /** The first wait after a failed batch, doubling up to `maxBackoffMs` (default 1 s). */
  retryBaseMs?: number;
  /** Ceiling of the backoff after failed batches (default 30 s). */
  maxBackoffMs?: number;
  registry?: Registry;
}

export interface OutboxPending {
  count: number;
  oldestAgeSeconds: number;
}

interface OutboxRow {
  id: string;
  eventId: string;
  event: string;
  payload: string;
  /** The trace of the write that made the row, when it was traced. */
  traceparent: string | null;
}

/**
 * Publishes committed outbox rows in id order and marks them published once the broker confirmed them.
 * Rows are claimed with `for update skip locked`, so several replicas can run a relay side by side. A row
 * is marked only after its confirm: a crash in between republishes it (consumers de-duplicate by event id),
 * but no row is ever lost or skipped.
 */
export class OutboxRelay {
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly published?: Counter<'event'>;
  private running = false;
  private loop: Promise<void> | undefined;
  private kicked = false;
  private wake: (() => void) | undefined;
  private failures = 0;
  private pendingProbe: Promise<OutboxPending> | undefined;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.log = opts.logger.child({ component: 'outbox-relay' });
    this.pollIntervalMs = opts.pollIntervalMs ?? 5_000;
    this.batchSize = opts.batchSize ?? 100;
    if (opts.registry) {
      this.published = counter(opts.registry, 'events_published_total', 'Events published from the outbox', [
        'event',
      ]);
      const probe = () => this.sharedPending();
      gauge(
        opts.registry,
        'outbox_pending_events',
        'Outbox rows not yet published',
        async () => (await probe()).count,
      );
      gauge(
        opts.registry,
        'outbox_oldest_pending_seconds',
        'Age of the oldest unpublished outbox row',
        async () => {
          return (await probe()).oldestAgeSeconds;
        },
      );
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.opts.amqp.onConnect(async (channel) => {
      await declareExchange(channel, this.opts.exchange);
      this.kick();
    });
    this.loop = this.run();
  }

  /** Publish soon rather than at the next poll; call after committing a transaction that enqueued events. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  async pending(): Promise<OutboxPending> {
    const [row] = await this.opts.sql<OutboxPending[]>`
      select count(*)::int as count,
             coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_age_seconds
      from outbox
      where published_at is null`;
    return row ?? { count: 0, oldestAgeSeconds: 0 };
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (!this.opts.amqp.isConnected()) {
        // Wakes as soon as the connection is back (its setup kicks us), else re-checks at the poll interval.
        await this.idle(this.pollIntervalMs);
        continue;
      }
      try {
        const taken = await this.publishBatch();
        this.failures = 0;
        if (taken < this.batchSize) await this.idle(this.pollIntervalMs);
      } catch (err) {
        this.failures++;
        const delayMs = backoffDelay(
          this.failures,
          this.opts.retryBaseMs ?? 1_000,
          this.opts.maxBackoffMs ?? 30_000,
        );
        this.log.warn({ reason: errorMessage(err), failures: this.failures, delayMs }, 'outbox batch failed');
        await this.idle(delayMs, { ignoreKick: true });
      }
    }
  }

  /** Publishes one batch; returns how many rows it claimed, or throws after recording a failure. */
  private async publishBatch(): Promise<number> {
    let failure: unknown;
    const taken = await inTransaction(this.opts.sql, async (tx) => {
      const rows = await tx<OutboxRow[]>`
        select id, event_id, event, payload::text as payload, traceparent
        from outbox
        where published_at is null
        order by id
        limit ${this.batchSize}
        for update skip locked`;
      if (rows.length === 0) return 0;
      // Published back to back on one channel, so the broker receives them in id order; then await all confirms.
      const results = await Promise.allSettled(rows.map((row) => this.publishRow(row)));
      const sent = rows.filter((_, i) => results[i]?.status === 'fulfilled');
      const failed = rows.filter((_, i) => results[i]?.status === 'rejected');
      // A mark lost in a database crash only republishes its rows, which consumers de-duplicate by
      // event id (as after a crash between confirm and mark): it need not wait for the WAL's flush,
      // a few milliseconds of every event's trip.
      await tx`set local synchronous_commit = off`;
      if (sent.length > 0) {
        await tx`update outbox set published_at = now() where id in ${tx(sent.map((row) => row.id))}`;
      }
      if (failed.length > 0) {
        failure = results.find((result) => result.status === 'rejected')?.reason;
        await tx`
          update outbox set attempts = attempts + 1, last_error = ${errorMessage(failure)}
          where id in ${tx(failed.map((row) => row.id))}`;
      }
      return rows.length;
    });
    if (failure !== undefined) throw failure;
    return taken;
  }

  private async publishRow(row: OutboxRow): Promise<void> {
    // Read as text: the camelCase transform of the db client would otherwise rewrite keys inside `data`.
    const envelope = JSON.parse(row.payload) as EventEnvelope;
    // Published in the trace of the write that made the row: the broker's headers carry it on.
    await context.with(contextOf(row.traceparent), () =>
      this.opts.amqp.publish(this.opts.exchange, row.event, serializeEnvelope(envelope), {
        persistent: true,
        contentType: 'application/json',
        messageId: row.eventId,
        type: row.event,
        timestamp: Math.floor(Date.parse(envelope.timestamp) / 1000),
      }),
    );
    this.published?.inc({ event: row.event });
  }

  private idle(ms: number, { ignoreKick = false } = {}): Promise<void> {
    if (!this.running || (this.kicked && !ignoreKick)) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        this.kicked = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = () => {
        if (!this.running || !ignoreKick) done();
      };
    });
  }

  private sharedPending(): Promise<OutboxPending> {
    this.pendingProbe ??= this.pending().finally(() => {
      this.pendingProbe = undefined;
    });
    return this.pendingProbe;
  }
}
