import type { PublicEvent } from '@community/contracts';

export interface EndpointRow {
  id: number;
  userId: number;
  url: string;
  description: string;
  events: PublicEvent[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  /** The last attempt (or ping) answered in time (DESIGN.md §21); new endpoints are in the slow lane. */
  fastLane: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRow {
  id: number;
  endpointId: number;
  eventId: string;
  event: PublicEvent | 'ping';
  body: string;
  messageId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempts: number;
  roundStart: number;
  responseStatus: number | null;
  durationMs: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  /** The trace of the event this delivery carries, when it was traced; never sent to the receiver. */
  traceparent: string | null;
}
