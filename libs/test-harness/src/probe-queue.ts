import amqp from 'amqplib';
import type { ConsumeMessage } from 'amqplib';
import { testInfra } from './infra';
import { uniqueName } from './names';

export interface ProbeQueue {
  messages: ConsumeMessage[];
  bodies(): unknown[];
  close(): Promise<void>;
}

/**
 * An exclusive queue bound to `exchange` that records every message it gets, on its own direct
 * connection (never through a test proxy). The broker deletes it when the probe closes.
 */
export async function probeQueue(amqpUrl: string, exchange: string, bindingKey = '#'): Promise<ProbeQueue> {
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue(uniqueName('probe'), { exclusive: true });
  await channel.bindQueue(queue, exchange, bindingKey);
  const messages: ConsumeMessage[] = [];
  await channel.consume(queue, (message) => message && messages.push(message), { noAck: true });
  return {
    messages,
    bodies: () => messages.map((message) => JSON.parse(message.content.toString('utf8'))),
    close: () => connection.close(),
  };
}

/** A started service with a probe queue on its exchange, closed before the service stops. */
export type Probed<H extends { exchange: string; stop(): Promise<void> }> = H & { probe: ProbeQueue };

/** Binds a probe queue to the service's exchange, so a test sees every event the service publishes. */
export async function withProbe<H extends { exchange: string; stop(): Promise<void> }>(
  harness: H,
): Promise<Probed<H>> {
  const probe = await probeQueue(testInfra().amqpUrl, harness.exchange);
  const stop = harness.stop.bind(harness);
  return Object.assign(harness, {
    probe,
    async stop() {
      await probe.close();
      await stop();
    },
  });
}
