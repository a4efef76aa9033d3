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

/** OpenAPI `webhooks`: what a registered endpoint receives, one entry per public event. */
export function webhooksSection(): Json {
  return Object.fromEntries(
    PUBLIC_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `${event.replace(/\.(\w)/, (_, letter: string) => letter.toUpperCase())}Webhook`,
          tags: ['Events'],
          summary: EVENT_SUMMARIES[event],
          description: `Sent as \`POST <your url>\` to every enabled endpoint subscribed to \`${event}\`; the body is exactly \`{event, timestamp, data}\`.`,
          security: [],
          parameters: Object.keys(WEBHOOK_PARAMETERS).map((name) => ref('parameters', name)),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('schemas', eventSchemaName(event)),
                example: EVENT_EXAMPLES[event],
              },
            },
          },
          responses: RESPONSES,
        },
      },
    ]),
  );
}
