import { Webhook, WebhookVerificationError as Refused } from 'standardwebhooks';
import type { WebhookEvent } from './types';

/**
 * What verifyWebhook throws when a delivery does not hold (standardwebhooks' class, typed here so
 * that the declarations need neither its types nor Node's).
 */
export const WebhookVerificationError: new (message: string) => Error = Refused;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: HeaderBag): Record<string, string> {
  const entries =
    typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function'
      ? [...(headers as Headers).entries()]
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  const plain: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return plain;
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's secret (`whsec_…`) and the raw body exactly as
 * received, and returns the parsed event; throws WebhookVerificationError when it does not hold or
 * the timestamp is more than five minutes away. Parse nothing before this: re-serialised JSON no
 * longer matches its signature.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  rawBody: string | Uint8Array,
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
}
