import { inTransaction, isConnectionError, type Sql, type Tx } from '@community/db';
import type { Logger } from '@community/logging';
import type { Channel, ConsumeMessage } from 'amqplib';
import type { Counter, Registry } from 'prom-client';
import { backoffDelay, errorMessage, sleep } from './backoff';
import type { AmqpConnection } from './connection';
import { parseEnvelope, type EventEnvelope } from './envelope';
import { counter, gaugeSeries } from './metrics';
import { DEFAULT_MAX_DELIVERIES, declareTopology, topologyNames, type TopologyNames } from './topology';

export type EventHandler = (tx: Tx, event: EventEnvelope) => Promise<void>;

/** Several handler tables as one: an event handled in more than one runs each, in order, in its one transaction. */
export function mergeHandlers(...maps: Record<string, EventHandler>[]): Record<string, EventHandler> {
  const merged: Record<string, EventHandler[]> = {};
  for (const map of maps)
    for (const [event, handler] of Object.entries(map)) (merged[event] ??= []).push(handler);
  return Object.fromEntries(
    Object.entries(merged).map(([event, handlers]): [string, EventHandler] => [
      event,
      handlers.length === 1
        ? handlers[0]!
        : async (tx, envelope) => {
            for (const handler of handlers) await handler(tx, envelope);
          },
    ]),
  );
}

export interface EventConsumerOptions {
  sql: Sql;
  amqp: AmqpConnection;
  exchange: string;
  service: string;
  handlers: Record<string, EventHandler>;
  maxDeliveries?: number;
  prefetch?: number;
  /** Pause before returning a failed message, times its delivery count (default 100 ms). */
  retryDelayMs?: number;
  logger: Logger;
  registry?: Registry;
  /** Called after an event's transaction committed (not for duplicates), e.g. to act on its rows at once. */
  onApplied?: (event: EventEnvelope) => void;
}

type Outcome = 'applied' | 'duplicate' | 'failed' | 'dead_lettered';

const DEAD_LETTERS = {
  name: 'events_dead_letter_messages',
  help: 'Messages waiting in the dead-letter queue',
  label: 'queue',
};

/**
 * Consumes the service queue and applies each event exactly once: the handler runs in the transaction
 * that records the event id in `processed_events`, and the message is acked only after that commit.
 * A failing handler is retried by the broker with a growing pause; the delivery that reaches
 * `maxDeliveries` is dead-lettered, so a poisoned event never loops hot nor blocks the others.
 */
export class EventConsumer {
  private readonly log: Logger;
  private readonly names: TopologyNames;
  private readonly maxDeliveries: number;
  private readonly consumed?: Counter<'event' | 'outcome'>;
  private readonly forgetDeadLetters?: () => void;
  private readonly inFlight = new Set<Promise<void>>();
  private subscription: { channel: Channel; consumerTag: string } | undefined;
  private started = false;
  private stopping = false;

  constructor(private readonly opts: EventConsumerOptions) {
    this.names = topologyNames(opts.exchange, opts.service);
    this.log = opts.logger.child({ component: 'event-consumer', queue: this.names.queue });
    this.maxDeliveries = opts.maxDeliveries ?? DEFAULT_MAX_DELIVERIES;
    if (!Number.isInteger(this.maxDeliveries) || this.maxDeliveries < 1)
      throw new Error('maxDeliveries must be ≥ 1');
    if (opts.registry) {
      this.consumed = counter(
        opts.registry,
        'events_consumed_total',
        'Events taken from the queue, by outcome',
        ['event', 'outcome'],
      );
      const { deadLetterQueue } = this.names;
      this.forgetDeadLetters = gaugeSeries(opts.registry, DEAD_LETTERS, deadLetterQueue, () =>
        this.deadLetters(),
      );
    }
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.opts.amqp.onConnect((channel) => this.subscribe(channel));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.forgetDeadLetters?.();
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.channel.cancel(subscription.consumerTag).catch(() => undefined);
    await Promise.all(this.inFlight);
  }

  private async subscribe(channel: Channel): Promise<void> {
    if (this.stopping) return;
    const { exchange, service, handlers, prefetch = 10 } = this.opts;
    await declareTopology(channel, exchange, service, Object.keys(handlers), {
      maxDeliveries: this.maxDeliveries,
    });
    await channel.prefetch(prefetch);
    const { consumerTag } = await channel.consume(this.names.queue, (message) => {
      if (!message) {
        this.log.warn('consumer cancelled by the broker (queue deleted?)');
        return;
      }
      const work = this.handle(channel, message)
        .catch((err: unknown) => this.log.error({ err }, 'event message handling crashed'))
        .finally(() => this.inFlight.delete(work));
      this.inFlight.add(work);
    });
    this.subscription = { channel, consumerTag };
    // stop() may have run while this setup was still declaring: it found nothing to cancel then.
    if (this.stopping) await channel.cancel(consumerTag);
  }

  /**
   * The dead-letter queue's depth, asked at each scrape once the queue is declared; undefined — the
   * gauge keeps its last value — while the broker cannot say.
   */
  private async deadLetters(): Promise<number | undefined> {
    if (!this.subscription) return undefined;
    return this.opts.amqp.messageCount(this.names.deadLetterQueue).catch(() => undefined);
  }

  private async handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    const envelope = parseEnvelope(message.content);
    if (!envelope) {
      this.log.warn({ messageId: message.properties.messageId }, 'malformed event message, dead-lettering');
      this.count('malformed', 'dead_lettered');
      return settle(channel, message, 'reject');
    }
    const handler = this.opts.handlers[envelope.event];
    if (!handler) return settle(channel, message, 'ack');
    const context = { eventId: envelope.id, event: envelope.event };
    try {
      const outcome = await this.applyOnce(envelope, handler);
      this.count(envelope.event, outcome);
      if (outcome === 'applied') this.opts.onApplied?.(envelope);
      settle(channel, message, 'ack');
    } catch (err) {
      const deliveries = deliveryCount(message);
      this.log.error({ ...context, delivery: deliveries, err }, 'event handler failed');
      this.count(envelope.event, 'failed');
      await sleep((this.opts.retryDelayMs ?? 100) * deliveries);
      if (deliveries >= this.maxDeliveries) {
        this.log.warn({ ...context, deliveries }, 'event failed too often, dead-lettering');
        this.count(envelope.event, 'dead_lettered');
        settle(channel, message, 'reject');
      } else {
        settle(channel, message, 'requeue');
      }
    }
  }

  /**
   * Runs the handler in the transaction that claims the event id. A lost database connection is retried
   * here, holding the message, so an outage does not burn the message's deliveries into the DLQ.
   */
  private async applyOnce(envelope: EventEnvelope, handler: EventHandler): Promise<'applied' | 'duplicate'> {
    for (let failures = 0; ; failures++) {
      try {
        return await inTransaction(this.opts.sql, async (tx) => {
          const claimed = await tx`
            insert into processed_events (event_id, event) values (${envelope.id}, ${envelope.event})
            on conflict do nothing
            returning event_id`;
          if (claimed.length === 0) return 'duplicate' as const;
          await handler(tx, envelope);
          return 'applied' as const;
        });
      } catch (err) {
        if (!isConnectionError(err) || this.stopping) throw err;
        const delayMs = backoffDelay(failures, 200, 10_000);
        this.log.warn(
          { eventId: envelope.id, reason: errorMessage(err), delayMs },
          'database unreachable, retrying',
        );
        await sleep(delayMs);
      }
    }
  }

  private count(event: string, outcome: Outcome): void {
    this.consumed?.inc({ event, outcome });
  }
}

/** 1 on the first delivery; quorum queues count earlier returns in `x-delivery-count`. */
function deliveryCount(message: ConsumeMessage): number {
  const returned = Number((message.properties.headers ?? {})['x-delivery-count'] ?? 0);
  return (Number.isFinite(returned) ? returned : 0) + 1;
}

/** Acks on the channel the message came from; after a reconnect that channel is gone and the broker redelivers. */
function settle(channel: Channel, message: ConsumeMessage, how: 'ack' | 'requeue' | 'reject'): void {
  try {
    if (how === 'ack') channel.ack(message);
    else channel.nack(message, false, how === 'requeue');
  } catch {
    // Channel already closed: the broker returns the message to the queue by itself.
  }
}
