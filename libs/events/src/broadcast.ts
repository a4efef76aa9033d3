import type { Logger } from '@community/logging';
import type { AmqpConnection } from './connection';
import { parseEnvelope, type EventEnvelope } from './envelope';
import { declareExchange } from './topology';

export interface EveryReplicaOptions {
  amqp: AmqpConnection;
  exchange: string;
  events: readonly string[];
  logger: Logger;
  /** Called for each event; a throw is logged and the event dropped. */
  handle: (envelope: EventEnvelope) => void;
  /** Called each time the subscription is (re)made: whatever came while it was down was missed. */
  onSubscribed?: () => void;
}

/**
 * Events every process must hear, not one of them (a cache to drop, a stream to feed): each process
 * listens on its own exclusive, auto-deleted queue. Nothing waits there while the process is away, so
 * a caller must cope with a gap (see `onSubscribed`).
 */
export function onEveryReplica({
  amqp,
  exchange,
  events,
  logger,
  handle,
  onSubscribed,
}: EveryReplicaOptions): void {
  amqp.onConnect(async (channel) => {
    await declareExchange(channel, exchange);
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const event of events) await channel.bindQueue(queue, exchange, event);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        const envelope = parseEnvelope(message.content);
        try {
          if (!envelope) throw new Error('not an event envelope');
          handle(envelope);
        } catch (err) {
          logger.warn(
            { event: envelope?.event, err: { message: (err as Error).message } },
            'ignored a malformed broadcast event',
          );
        }
      },
      { noAck: true },
    );
    onSubscribed?.();
  });
}
