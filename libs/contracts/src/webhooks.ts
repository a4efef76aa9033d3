import { z } from 'zod';
import { enumQuery, cursorQuery, paginationQuery, text, timestamp, httpUrl } from './common';
import { PUBLIC_EVENTS } from './events';

export const MAX_WEBHOOKS_PER_USER = 20;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

const webhookUrl = httpUrl;

const events = z
  .array(z.enum(PUBLIC_EVENTS, { message: `must be one of ${PUBLIC_EVENTS.join(', ')}` }))
  .min(1, 'must name at least one event')
  .transform((list) => [...new Set(list)]);

export const createWebhookBody = z.strictObject({
  url: webhookUrl,
  events,
  description: text({ max: 500 }).optional(),
});
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

export const updateWebhookBody = z.strictObject({
  url: webhookUrl.optional(),
  events: events.optional(),
  description: text({ max: 500 }).optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>;

export const webhookSchema = z.strictObject({
  id: z.int(),
  url: z.string(),
  events: z.array(z.enum(PUBLIC_EVENTS)),
  description: z.string(),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Webhook = z.infer<typeof webhookSchema>;

/** Creation and rotation are the only answers that carry a secret. */
export const createdWebhookSchema = webhookSchema.extend({ secret: z.string() });

export const rotatedSecretSchema = z.strictObject({
  id: z.int(),
  secret: z.string(),
  previous_secret_expires_at: timestamp,
});

export const listDeliveriesQuery = z.object({
  ...paginationQuery,
  status: enumQuery(DELIVERY_STATUSES).optional(),
  ...cursorQuery,
});
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;

export const deliverySchema = z.strictObject({
  id: z.int(),
  message_id: z.string(),
  event: z.enum(PUBLIC_EVENTS),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int().min(0),
  response_status: z.int().nullable(),
  duration_ms: z.int().nullable(),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
});
export type Delivery = z.infer<typeof deliverySchema>;
