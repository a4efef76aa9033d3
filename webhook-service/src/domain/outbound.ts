/*
 * What the use cases ask of the network, as a port: delivery/ sends and checks (sender.ts, ssrf.ts),
 * and start.ts hands that in, so the rules here never import the layer that runs them.
 */

export interface SendInput {
  url: string;
  messageId: string;
  body: string;
  /** 1 or 2 `whsec_…` secrets. */
  secrets: string[];
  timestampSeconds?: number;
  /** Covers connect and response; default 10 000. */
  timeoutMs?: number;
  allowPrivate: boolean;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** Only read on 429 and 503, the statuses where the receiver asks us to back off. */
  retryAfterSeconds: number | null;
  /** Short and safe to store: never a secret, header or payload. */
  error: string | null;
  /** 410: the receiver asks for the endpoint to be disabled. */
  gone: boolean;
  /** The attempt was cut off at `timeoutMs`, whether or not a status had arrived by then. */
  timedOut: boolean;
}

export type RegistrationCheck = { ok: true } | { ok: false; code: 'invalid_value'; message: string };

export interface Outbound {
  /** Validates a webhook URL when it is registered or changed; delivery checks again at connect time. */
  checkUrl(url: string, allowPrivate: boolean): Promise<RegistrationCheck>;
  /** One delivery attempt. Never throws for network or receiver trouble; the result says what happened. */
  send(input: SendInput): Promise<SendResult>;
}
