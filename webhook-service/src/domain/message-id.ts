import { createHash } from 'node:crypto';

/**
 * The webhook-id of an event (DESIGN.md §14): `msg_` and the event's ULID, the same for every
 * endpoint, every retry and every replay. An id not of our making is hashed into the same shape.
 */
export function messageIdOf(eventId: string): string {
  if (/^evt_[0-9A-Z]{26}$/.test(eventId)) return `msg_${eventId.slice(4)}`;
  return `msg_${createHash('sha256').update(eventId).digest('hex').slice(0, 32)}`;
}
