import { PUBLIC_EVENTS } from '@community/contracts';
import type { EventEnvelope, EventHandler } from '@community/events';
import type { Tx } from '@community/db';
import { fanOut } from '../db/deliveries.repository';

/**
 * The five public events, each stored as one delivery per subscribed endpoint before the message is
 * acked. Internal events are never bound to this service's queue.
 */
export function fanOutHandlers(): Record<string, EventHandler> {
  const handler: EventHandler = async (tx: Tx, envelope: EventEnvelope) => {
    // The body every endpoint receives, byte for byte: exactly {event, timestamp, data}.
    const body = JSON.stringify({
      event: envelope.event,
      timestamp: envelope.timestamp,
      data: envelope.data,
    });
    await fanOut(tx, { id: envelope.id, type: envelope.event, body });
  };
  return Object.fromEntries(PUBLIC_EVENTS.map((event) => [event, handler]));
}
