import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { toTimestamp } from '@community/contracts';
import { createDb, type Sql } from '@community/db';
import { newEventId, type EventEnvelope } from '@community/events';
import { actor, apiClient, testInfra, waitFor, serviceSandbox } from '@community/test-harness';
import { parseWebhookConfig, type WebhookConfig } from '../../src/config';
import { SCHEMA, SERVICE, start, type WebhookService } from '../../src/start';

export interface WebhooksHarness {
  config: WebhookConfig;
  exchange: string;
  url: string;
  call: ReturnType<typeof apiClient>;
  sql: Sql;
  publish(event: string, data: unknown): Promise<EventEnvelope<unknown>>;
  /** Sends an event again, same id: what a broker redelivery looks like. */
  republish(envelope: EventEnvelope<unknown>): Promise<void>;
  restart(tuning?: Parameters<typeof start>[2]): Promise<void>;
  stop(): Promise<void>;
}

export const owner = actor(501, 'member', ['read', 'write', 'webhooks']);
export const stranger = actor(502, 'member', ['read', 'write', 'webhooks']);

/** webhook-service on port 0 with its own database and exchange, a fast retry schedule and local receivers allowed. */
export async function startWebhookService(
  label: string,
  env: Record<string, string> = {},
  tuning: Parameters<typeof start>[2] = {},
): Promise<WebhooksHarness> {
  const infra = testInfra();
  const sandbox = await serviceSandbox(label);
  const { database, exchange } = sandbox;
  const config = parseWebhookConfig({
    DATABASE_URL: database.url,
    AMQP_URL: infra.amqpUrl,
    AMQP_EXCHANGE: exchange,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_SERVICE_PORT: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '500',
    ...env,
  });
  let service: WebhookService = await start(config, undefined, { pollIntervalMs: 50, ...tuning });
  const sql = createDb(database.url, { schema: SCHEMA, max: 2 });
  await untilConsuming(service.url);
  const connection = await amqp.connect(infra.amqpUrl);
  const channel = await connection.createConfirmChannel();
  const harness: WebhooksHarness = {
    config,
    exchange,
    url: service.url,
    call: apiClient(service.url, config.INTERNAL_TOKEN),
    sql,
    async publish(event, data) {
      const envelope: EventEnvelope<unknown> = {
        id: newEventId(),
        event,
        timestamp: toTimestamp(new Date()),
        data: data as Record<string, unknown>,
      };
      channel.publish(exchange, event, Buffer.from(JSON.stringify(envelope)), { persistent: true });
      await channel.waitForConfirms();
      return envelope;
    },
    async republish(envelope) {
      channel.publish(exchange, envelope.event, Buffer.from(JSON.stringify(envelope)), { persistent: true });
      await channel.waitForConfirms();
    },
    async restart(next = {}) {
      await service.stop();
      service = await start({ ...config, WEBHOOK_SERVICE_PORT: service.port }, undefined, {
        pollIntervalMs: 50,
        ...next,
      });
      await untilConsuming(service.url);
    },
    async stop() {
      await service.stop();
      await connection.close();
      await sql.end({ timeout: 1 });
      await sandbox.cleanup([SERVICE]);
    },
  };
  return harness;
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
