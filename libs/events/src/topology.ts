import type { Channel } from 'amqplib';

export interface TopologyNames {
  exchange: string;
  deadLetterExchange: string;
  queue: string;
  deadLetterQueue: string;
}

export function topologyNames(exchange: string, service: string): TopologyNames {
  const queue = `${exchange}.${service}`;
  return { exchange, deadLetterExchange: `${exchange}.dlx`, queue, deadLetterQueue: `${queue}.dlq` };
}

export interface TopologyOptions {
  /** Deliveries after which the broker dead-letters a message by itself (default 5). */
  maxDeliveries?: number;
}

export const DEFAULT_MAX_DELIVERIES = 5;

/** The main exchange every service publishes to; declared by publishers and consumers alike. */
export async function declareExchange(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
}

/**
 * Declares the exchange, the shared dead-letter exchange, the service queue bound to `bindings`, and
 * its DLQ. The queue dead-letters with its own name as routing key, so the DLQs of different services
 * share one DLX without ever mixing.
 *
 * The queue is a quorum queue: its `x-delivery-limit` caps redeliveries even when a consumer crashes
 * mid-message (which the consumer's own counting could not see), and at-least-once dead-lettering
 * means a message is never dropped on its way to the DLQ. Queue arguments must match on every
 * redeclaration, so changing `maxDeliveries` for an existing queue needs the queue to be recreated.
 */
export async function declareTopology(
  channel: Channel,
  exchange: string,
  service: string,
  bindings: string[],
  { maxDeliveries = DEFAULT_MAX_DELIVERIES }: TopologyOptions = {},
): Promise<void> {
  const names = topologyNames(exchange, service);
  await declareExchange(channel, names.exchange);
  await channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, names.queue);
  await channel.assertQueue(names.queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      // The broker counts returns, not deliveries: a limit of N-1 returns allows N deliveries.
      'x-delivery-limit': maxDeliveries - 1,
      'x-dead-letter-exchange': names.deadLetterExchange,
      'x-dead-letter-routing-key': names.queue,
      'x-dead-letter-strategy': 'at-least-once',
      // at-least-once dead-lettering requires reject-publish overflow.
      'x-overflow': 'reject-publish',
    },
  });
  for (const key of bindings) await channel.bindQueue(names.queue, names.exchange, key);
}
