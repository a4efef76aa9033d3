import { z } from 'zod';
import { enumQuery, cursorQuery, dateTimeInput, paginationQuery, text, timestamp, httpUrl } from './common';
import { PUBLIC_EVENTS, type PublicEvent } from './events';

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
  /** A public event, or `ping` for a test ping (POST /webhooks/{id}/test). */
  event: z.enum([...PUBLIC_EVENTS, 'ping']),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int().min(0),
  response_status: z.int().nullable(),
  duration_ms: z.int().nullable(),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
});
export type Delivery = z.infer<typeof deliverySchema>;

/** How far back `GET /events` and a replay reach, and how long deliveries are kept (DESIGN.md §14). */
export const EVENT_RETENTION_DAYS = 30;
/** The most events one replay may queue. */
export const MAX_REPLAY_EVENTS = 10_000;

const eventTypes = z
  .string()
  .transform((raw, ctx) => {
    const types = [...new Set(raw.split(',').map((type) => type.trim()))];
    const unknown = types.find((type) => !(PUBLIC_EVENTS as readonly string[]).includes(type));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must list public events (${PUBLIC_EVENTS.join(', ')}), comma-separated`,
        params: { code: 'invalid_value' },
      });
      return z.NEVER;
    }
    return types as PublicEvent[];
  })
  .meta({ type: 'string' });

/** GET /events: the public events of the last 30 days, oldest first (DESIGN.md §14). */
export const listEventsQuery = z.object({
  ...paginationQuery,
  types: eventTypes
    .optional()
    .describe('Only these events, comma-separated (e.g. `post.created,post.deleted`).'),
  after: z
    .string()
    .regex(/^msg_[0-9A-Za-z]{1,64}$/, 'must be an event id (msg_…)')
    .optional()
    .describe('The events after this one (an `id` of this list, the `webhook-id` your endpoint received).'),
  ...cursorQuery,
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** One public event as stored: `id` is the `webhook-id` every endpoint received for it. */
export const eventLogEntrySchema = z.strictObject({
  id: z.string(),
  event: z.enum(PUBLIC_EVENTS),
  timestamp,
  data: z.record(z.string(), z.unknown()),
});
export type EventLogEntry = z.infer<typeof eventLogEntrySchema>;

/** POST /webhooks/{id}/test: the one attempt made, as the delivery log records it. */
export const pingResultSchema = z.strictObject({
  status: z.enum(['succeeded', 'failed']),
  response_status: z.int().nullable(),
  duration_ms: z.int().min(0),
  error: z.string().optional(),
});
export type PingResult = z.infer<typeof pingResultSchema>;

export const replayBody = z
  .strictObject({
    since: dateTimeInput(),
    until: dateTimeInput().optional(),
    events: z
      .array(z.enum(PUBLIC_EVENTS, { message: `must be one of ${PUBLIC_EVENTS.join(', ')}` }))
      .min(1)
      .optional(),
  })
  .refine((body) => !body.until || body.until > body.since, {
    message: 'until must be after since',
    path: ['until'],
  });
export type ReplayBody = z.output<typeof replayBody>;

export const replayResultSchema = z.strictObject({ queued: z.int().min(0) });
