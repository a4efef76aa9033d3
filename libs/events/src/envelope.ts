import { newEventId, wireTimestamp } from './ids';

/** The message body of every event on the bus: `{ id, event, timestamp, data }`. */
export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  event: string;
  timestamp: string;
  data: T;
}

export function createEnvelope<T>(event: string, data: T): EventEnvelope<T> {
  return { id: newEventId(), event, timestamp: wireTimestamp(), data };
}

/** Keeps the documented key order on the wire, whatever order the value came in. */
export function serializeEnvelope(envelope: EventEnvelope<unknown>): Buffer {
  const { id, event, timestamp, data } = envelope;
  return Buffer.from(JSON.stringify({ id, event, timestamp, data }));
}

/** The envelope in a message body, or undefined when the body is not JSON or not an envelope. */
export function parseEnvelope(content: Buffer): EventEnvelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(content.toString('utf8'));
  } catch {
    return undefined;
  }
  return isEnvelope(value) ? value : undefined;
}

function isEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    isNonEmptyString(candidate.id) &&
    isNonEmptyString(candidate.event) &&
    isNonEmptyString(candidate.timestamp) &&
    typeof candidate.data === 'object' &&
    candidate.data !== null &&
    !Array.isArray(candidate.data)
  );
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
