import { afterCommit } from '@community/db';
import { createLogger, type Logger } from '@community/logging';
import { serviceSchema, startDataService, type RunningDataService } from '@community/service-runtime';
import { buildApp } from './app';
import type { WebhookConfig } from './config';
import { Dispatcher } from './delivery/dispatcher';
import { sendWebhook } from './delivery/sender';
import { checkUrlForRegistration } from './delivery/ssrf';
import { startReencryption } from './domain/reencryption';
import { startRetention } from './domain/retention';
import { decodeSecretsKey, SecretBox } from './domain/secret-box';
import { sealStoredSecrets } from './domain/secrets-at-rest';
import { webhookHandlers } from './events/consumers';

export const SERVICE_SCHEMA = serviceSchema('webhook-service', 'webhooks', __dirname);

export type WebhookService = RunningDataService;

/** The dispatcher's timings, for tests (DESIGN.md §7's defaults otherwise); `dispatch: false` sends nothing. */
interface Tuning {
  timeoutMs?: number;
  pollIntervalMs?: number;
  idleMaxMs?: number;
  maxInFlight?: number;
  leaseSeconds?: number;
  dispatch?: boolean;
}

/** Starts webhook-service: database and migrations, the event consumer that fans out, the dispatcher, HTTP. */
export function start(
  config: WebhookConfig,
  logger: Logger = createLogger({ service: SERVICE_SCHEMA.service, level: config.LOG_LEVEL }),
  tuning: Tuning = {},
): Promise<WebhookService> {
  let dispatcher: Dispatcher | undefined;
  let stopRetention: (() => void) | undefined;
  let stopReencryption: (() => void) | undefined;
  const previousKey = config.SECRETS_KEY_PREVIOUS
    ? decodeSecretsKey(config.SECRETS_KEY_PREVIOUS)!
    : undefined;
  const box = new SecretBox(decodeSecretsKey(config.SECRETS_KEY)!, previousKey);
  const kick = () => dispatcher?.kick();
  return startDataService({
    ...SERVICE_SCHEMA,
    handlers: webhookHandlers(),
    // The new deliveries are committed: send them now rather than at the next poll.
    onEventApplied: kick,
    port: config.WEBHOOK_SERVICE_PORT,
    config,
    logger,
    async prepare(runtime) {
      await sealStoredSecrets(runtime.sql, box, logger);
      dispatcher = new Dispatcher({
        sql: runtime.sql,
        logger,
        registry: runtime.registry,
        schedule: config.WEBHOOK_RETRY_SCHEDULE,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        box,
        pollIntervalMs: tuning.pollIntervalMs ?? 200,
        idleMaxMs: tuning.idleMaxMs,
        maxInFlight: tuning.maxInFlight,
        leaseSeconds: tuning.leaseSeconds ?? config.WEBHOOK_LEASE_SECONDS,
        timeoutMs: tuning.timeoutMs,
      });
      // dispatch: false runs a consumer only (tests use it to stop between fan-out and delivery).
      if (tuning.dispatch !== false) dispatcher.start();
      stopRetention = startRetention(runtime.sql, logger);
      stopReencryption = startReencryption(runtime.sql, box, logger, runtime.registry);
    },
    app: (runtime) =>
      buildApp({
        ...runtime,
        logger,
        internalToken: config.INTERNAL_TOKEN,
        internalTokenPrevious: config.INTERNAL_TOKEN_PREVIOUS,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        box,
        outbound: { checkUrl: checkUrlForRegistration, send: sendWebhook },
        // After the request's transaction commits (an idempotent request commits late, DESIGN.md §10).
        kickDispatcher: () => afterCommit(runtime.sql, kick),
      }),
    onStop: () => {
      stopRetention?.();
      stopReencryption?.();
      return dispatcher?.stop();
    },
  });
}
