import amqp from 'amqplib';
import { toTimestamp } from '@community/contracts';
import { newEventId, type EventEnvelope } from '@community/events';
import { testInfra } from './infra';

/** An event as a service's outbox would publish it, with a fresh id. */
export const testEnvelope = (event: string, data: unknown, at = new Date()): EventEnvelope<any> => ({
  id: newEventId(),
  event,
  timestamp: toTimestamp(at),
  data: data as Record<string, unknown>,
});

/** Publishes events on the exchange as the relays do (routing key = event name), confirmed. */
export async function publishEvents(exchange: string, events: EventEnvelope<unknown>[]): Promise<void> {
  const connection = await amqp.connect(testInfra().amqpUrl);
  try {
    const channel = await connection.createConfirmChannel();
    for (const e of events)
      channel.publish(exchange, e.event, Buffer.from(JSON.stringify(e)), { persistent: true });
    await channel.waitForConfirms();
  } finally {
    await connection.close();
  }
}
