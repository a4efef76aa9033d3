import { z } from 'zod';
import {
  boolVar,
  dataServiceEnv,
  emptyAsUndefined,
  intVar,
  loadConfig,
  parseConfig,
  portVar,
} from '@community/config';
import { decodeSecretsKey } from './domain/secret-box';

export const DEFAULT_RETRY_SCHEDULE = '5,300,1800,7200,18000,36000,36000';

export const webhookConfigSchema = z.object({
  ...dataServiceEnv,
  WEBHOOK_SERVICE_PORT: portVar(3003),
  /** Seals the endpoints' signing secrets in the database (AES-256-GCM); `npm start` provides one. */
  SECRETS_KEY: z
    .string({ message: 'is required: 32 random bytes as base64 or hex, e.g. `openssl rand -base64 32`' })
    .refine((value) => decodeSecretsKey(value) !== null, {
      message: 'must be 32 bytes as base64 or hex, e.g. `openssl rand -base64 32`',
    }),
  /** During a rotation (docs/operations.md): the key secrets sealed before are opened with; never seals. */
  SECRETS_KEY_PREVIOUS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((value) => decodeSecretsKey(value) !== null, {
        message: 'must be 32 bytes as base64 or hex, like SECRETS_KEY',
      })
      .optional(),
  ),
  /** Loopback and private addresses are refused unless this is true (npm start sets it for local receivers). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolVar(false),
  /**
   * How long an attempt holds its delivery: one whose dispatcher died is sent again after this. Longer
   * than an attempt may take (10 s), or a slow attempt would be sent twice.
   */
  WEBHOOK_LEASE_SECONDS: intVar(60, 15),
  /** Seconds to wait before each retry; its length is the number of retries after the first attempt. */
  WEBHOOK_RETRY_SCHEDULE: z
    .preprocess(emptyAsUndefined, z.string().default(DEFAULT_RETRY_SCHEDULE))
    .transform((value, ctx) => {
      const parts = value.split(',').map((part) => part.trim());
      const seconds = parts.map(Number);
      if (parts.some((part) => !/^\d+(\.\d+)?$/.test(part)) || seconds.length > 50) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a comma-separated list of up to 50 numbers of seconds',
        });
        return z.NEVER;
      }
      return seconds;
    }),
});

export type WebhookConfig = z.output<typeof webhookConfigSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): WebhookConfig =>
  loadConfig(webhookConfigSchema, env);
export const parseWebhookConfig = (env: NodeJS.ProcessEnv): WebhookConfig =>
  parseConfig(webhookConfigSchema, env);
