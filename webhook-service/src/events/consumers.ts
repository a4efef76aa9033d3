import { activeTraceparent } from '@community/telemetry';
import { PUBLIC_EVENTS } from '@community/contracts';
import type { EventEnvelope, EventHandler } from '@community/events';
import type { Tx } from '@community/db';
import { fanOut } from '../db/deliveries.repository';
import { logEvent } from '../db/events.repository';
import { messageIdOf } from '../domain/message-id';

/**
 * The five public events: each logged once for `GET /events` and stored as one delivery per
 * subscribed endpoint before the message is acked. Internal events are never bound to this queue.
 */
export function fanOutHandlers(): Record<string, EventHandler> {
  const handler: EventHandler = async (tx: Tx, envelope: EventEnvelope) => {
    // The body every endpoint receives, byte for byte: exactly {event, timestamp, data}.
    const body = JSON.stringify({
      event: envelope.event,
      timestamp: envelope.timestamp,
      data: envelope.data,
    });
    const messageId = messageIdOf(envelope.id);
    await logEvent(tx, {
      id: messageId,
      eventId: envelope.id,
      type: envelope.event,
      body,
      at: envelope.timestamp,
    });
    const traceparent = activeTraceparent();
    await fanOut(tx, { id: envelope.id, messageId, type: envelope.event, body, traceparent });
  };
  return Object.fromEntries(PUBLIC_EVENTS.map((event) => [event, handler]));
}
