import { activeTraceparent } from '@community/telemetry';
import { PUBLIC_EVENTS } from '@community/contracts';
import { mergeHandlers, type EventEnvelope, type EventHandler } from '@community/events';
import type { Tx } from '@community/db';
import { fanOut } from '../db/deliveries.repository';
import { logEvent } from '../db/events.repository';
import { messageIdOf } from '../domain/message-id';
import { redactionHandlers } from '../domain/redaction';

/**
 * What webhook-service consumes: the stored events' redactions (DESIGN.md §20, which also bind the
 * internal `comment.deleted` and `moderation.action`), then each public event's fan-out.
 */
export const webhookHandlers = (): Record<string, EventHandler> =>
  mergeHandlers(redactionHandlers, fanOutHandlers());

/**
 * The public events: each logged once for `GET /events` and stored as one delivery per subscribed
 * endpoint before the message is acked.
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
