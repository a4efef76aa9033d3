import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { toTimestamp } from '@community/contracts';
import { newEventId, type EventEnvelope } from '@community/events';
import {
  actor,
  startServiceUnderTest,
  testInfra,
  waitFor,
  type ServiceDefinition,
  type ServiceUnderTest,
} from '@community/test-harness';
import { parseWebhookConfig, type WebhookConfig } from '../../src/config';
import { SERVICE_SCHEMA, start, type WebhookService } from '../../src/start';

export interface WebhooksHarness extends Omit<ServiceUnderTest<WebhookConfig, WebhookService>, 'restart'> {
  publish(event: string, data: unknown): Promise<EventEnvelope<unknown>>;
  /** Sends an event again, same id: what a broker redelivery looks like. */
  republish(envelope: EventEnvelope<unknown>): Promise<void>;
  restart(tuning?: Tuning): Promise<void>;
}

type Tuning = Parameters<typeof start>[2];

export const owner = actor(501, 'member', ['read', 'write', 'webhooks']);
export const stranger = actor(502, 'member', ['read', 'write', 'webhooks']);

/** How a test starts webhook-service: polling fast, and consuming before it counts as started. */
export const webhookService = (tuning: Tuning = {}): ServiceDefinition<WebhookConfig, WebhookService> => ({
  service: SERVICE_SCHEMA.service,
  schema: SERVICE_SCHEMA.schema,
  portVar: 'WEBHOOK_SERVICE_PORT',
  parse: parseWebhookConfig,
  start: (config) => start(config, undefined, { pollIntervalMs: 50, ...tuning }),
  ready: (running) => untilConsuming(running.url),
});

/** The variables webhook-service needs beyond the common ones: a key for secrets, local receivers allowed. */
export const webhookEnv = () => ({
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  SHUTDOWN_GRACE_MS: '500',
});

/** webhook-service on port 0 with its own database and exchange, a fast retry schedule and local receivers allowed. */
export async function startWebhookService(
  label: string,
  env: Record<string, string> = {},
  tuning: Tuning = {},
): Promise<WebhooksHarness> {
  const definition = webhookService(tuning);
  const harness = await startServiceUnderTest(definition, {
    label,
    env: { ...webhookEnv(), WEBHOOK_RETRY_SCHEDULE: '0.2,0.2', ...env },
  });
  const connection = await amqp.connect(testInfra().amqpUrl);
  const channel = await connection.createConfirmChannel();
  const send = async (envelope: EventEnvelope<unknown>) => {
    channel.publish(harness.exchange, envelope.event, Buffer.from(JSON.stringify(envelope)), {
      persistent: true,
    });
    await channel.waitForConfirms();
  };
  const stop = harness.stop;
  const restart = harness.restart;
  return Object.assign(harness, {
    async publish(event: string, data: unknown) {
      const envelope: EventEnvelope<unknown> = {
        id: newEventId(),
        event,
        timestamp: toTimestamp(new Date()),
        data: data as Record<string, unknown>,
      };
      await send(envelope);
      return envelope;
    },
    republish: send,
    restart: (next: Tuning = {}) => restart(webhookService(next).start),
    async stop() {
      await stop();
      await connection.close();
    },
  });
}

/** The consumer has declared its queue and bindings once the broker counts as connected. */
async function untilConsuming(url: string): Promise<void> {
  await waitFor(
    async () =>
      ((await (await fetch(`${url}/readyz`)).json()) as { checks: { rabbitmq: { status: string } } }).checks
        .rabbitmq.status === 'ok',
    { what: 'webhook-service to consume events' },
  );
}
