import type { Logger } from '@community/logging';
import type { AmqpConnection } from './connection';
import { parseEnvelope, serializeEnvelope, type EventEnvelope } from './envelope';
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

interface Listener {
  events: readonly string[];
  handle: (envelope: EventEnvelope) => void;
  logger: Logger;
}

/** Each connection's every-replica listeners, for {@link echoCommitted}. */
const listeners = new WeakMap<AmqpConnection, Listener[]>();

/**
 * Events every process must hear, not one of them (a cache to drop, a stream to feed): each process
 * listens on its own exclusive, auto-deleted queue. Nothing waits there while the process is away, so
 * a caller must cope with a gap (see `onSubscribed`). An event this process committed itself comes
 * twice: at once from {@link echoCommitted}, then from the bus, so `handle` must take it twice alike.
 */
export function onEveryReplica({
  amqp,
  exchange,
  events,
  logger,
  handle,
  onSubscribed,
}: EveryReplicaOptions): void {
  const listener: Listener = { events, handle, logger };
  listeners.set(amqp, [...(listeners.get(amqp) ?? []), listener]);
  amqp.onConnect(async (channel) => {
    await declareExchange(channel, exchange);
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const event of events) await channel.bindQueue(queue, exchange, event);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        const envelope = parseEnvelope(message.content);
        if (!envelope) return ignored(listener, undefined, new Error('not an event envelope'));
        deliver(listener, envelope);
      },
      { noAck: true },
    );
    onSubscribed?.();
  });
}

/**
 * Hands events this process just committed (the outbox rows of its own transaction) to its own
 * every-replica listeners, without waiting for the relay and the broker to bring them back: the
 * process's own streams hear of a notification one broker round trip sooner. The bus still carries
 * them to every other process, and to this one again.
 */
export function echoCommitted(amqp: AmqpConnection, committed: readonly EventEnvelope<unknown>[]): void {
  for (const listener of listeners.get(amqp) ?? [])
    for (const envelope of committed)
      // As the bus would bring it: serialised and parsed again.
      if (listener.events.includes(envelope.event))
        deliver(listener, parseEnvelope(serializeEnvelope(envelope))!);
}

function deliver(listener: Listener, envelope: EventEnvelope): void {
  try {
    listener.handle(envelope);
  } catch (err) {
    ignored(listener, envelope, err);
  }
}

function ignored(listener: Listener, envelope: EventEnvelope | undefined, err: unknown): void {
  listener.logger.warn(
    { event: envelope?.event, err: { message: (err as Error).message } },
    'ignored a malformed broadcast event',
  );
}
