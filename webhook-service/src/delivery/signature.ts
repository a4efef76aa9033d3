import { Webhook } from 'standardwebhooks';

export interface SignedMessage {
  messageId: string;
  body: string;
  timestampSeconds: number;
  /** One secret normally; two while a rotated-out secret is still honoured. */
  secrets: string[];
}

/**
 * The Standard Webhooks `webhook-signature` value: one `v1,<base64>` per live secret, space-separated,
 * so a receiver still holding the previous secret keeps verifying during a rotation.
 */
export function signatureHeader(message: SignedMessage): string {
  if (message.secrets.length === 0) throw new Error('a webhook needs at least one signing secret');
  const at = new Date(message.timestampSeconds * 1000);
  return message.secrets
    .map((secret) => new Webhook(secret).sign(message.messageId, at, message.body))
    .join(' ');
}
