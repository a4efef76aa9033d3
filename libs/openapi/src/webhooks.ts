import { PUBLIC_EVENTS, type PublicEvent } from '@community/contracts';
import { EVENT_EXAMPLES } from './examples';
import { ref } from './responses';
import { eventSchemaName } from './schemas';

type Json = Record<string, unknown>;

const EVENT_SUMMARIES: Record<PublicEvent, string> = {
  'post.created': 'A post was created',
  'post.updated': 'A post was updated (`changed` names the fields whose value changed)',
  'post.deleted': 'A post was deleted',
  'comment.created': 'A comment was added (`parent_id` is null at top level)',
  'user.registered': 'A user registered',
  'user.deleted': 'An account was erased: its id names no one any more (DESIGN.md §20)',
};

/** The Standard Webhooks headers every delivery carries (DESIGN.md §7). */
export const WEBHOOK_PARAMETERS: Record<string, Json> = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The message id: stable across retries and redeliveries; de-duplicate on it.',
    schema: { type: 'string', minLength: 1 },
    example: 'evt_01JKX3M5W8Q2T7Y9Z4B6C8D0EF',
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix time in seconds of this attempt.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1770459300',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the endpoint secret (the base64 after `whsec_`). Two space-separated signatures while a rotated secret is still live. Verify with the `standardwebhooks` package.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
};

const RETRY_LATER: Json = {
  description:
    'Retried after the `Retry-After` you send (seconds or an HTTP date), or on the retry schedule.',
  headers: { 'Retry-After': { schema: { type: 'string' } } },
};

const RESPONSES: Json = {
  '2XX': {
    description: 'Delivered: any 2xx within 10 seconds counts as success. Redirects are not followed.',
  },
  '410': { description: 'Gone: the endpoint is disabled and receives nothing more.' },
  '429': RETRY_LATER,
  '503': RETRY_LATER,
  default: {
    description:
      'Anything else, or no answer within 10 seconds, is retried on the retry schedule (±20% jitter); after the last attempt the delivery is `failed` and can be redelivered. Deleting or disabling the endpoint ends its pending deliveries as `cancelled`.',
  },
};

/** One entry of `webhooks`: a request our endpoints receive, signed, with `schema` as its body. */
function delivered(entry: {
  operationId: string;
  summary: string;
  description: string;
  schema: Json;
  example: unknown;
}): Json {
  const { schema, example, ...about } = entry;
  return {
    post: {
      ...about,
      tags: ['Events'],
      security: [],
      parameters: Object.keys(WEBHOOK_PARAMETERS).map((name) => ref('parameters', name)),
      requestBody: { required: true, content: { 'application/json': { schema, example } } },
      responses: RESPONSES,
    },
  };
}

/** The test ping (POST /webhooks/{id}/test): signed like every delivery, sent once, never retried. */
const PING = delivered({
  operationId: 'pingWebhook',
  summary: 'A test ping',
  description:
    "Sent once, when the endpoint's owner asks for it (`POST /api/v1/webhooks/{id}/test`), signed like every delivery; never retried. `data.webhook_id` names the endpoint.",
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['event', 'timestamp', 'data'],
    properties: {
      event: { const: 'ping' },
      timestamp: { type: 'string', format: 'date-time' },
      data: {
        type: 'object',
        additionalProperties: false,
        required: ['webhook_id'],
        properties: { webhook_id: { type: 'integer' } },
      },
    },
  },
  example: { event: 'ping', timestamp: '2026-02-01T10:15:00Z', data: { webhook_id: 5 } },
});

/** OpenAPI `webhooks`: what a registered endpoint receives, one entry per public event, and the ping. */
export function webhooksSection(): Json {
  return Object.fromEntries([
    ...PUBLIC_EVENTS.map((event) => [
      event,
      delivered({
        operationId: `${event.replace(/\.(\w)/, (_, letter: string) => letter.toUpperCase())}Webhook`,
        summary: EVENT_SUMMARIES[event],
        description: `Sent as \`POST <your url>\` to every enabled endpoint subscribed to \`${event}\`; the body is exactly \`{event, timestamp, data}\`.`,
        schema: ref('schemas', eventSchemaName(event)),
        example: EVENT_EXAMPLES[event],
      }),
    ]),
    ['ping', PING],
  ]);
}
