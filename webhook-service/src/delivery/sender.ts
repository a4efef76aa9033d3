import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { SendInput, SendResult } from '../domain/outbound';
import { parseRetryAfter } from './retry-after';
import { signatureHeader } from './signature';
import { ForbiddenDestinationError, guardedLookup, hostOf, isForbiddenAddress } from './ssrf';

type Outcome = Omit<SendResult, 'durationMs'>;

const DEFAULT_TIMEOUT_MS = 10_000;
// Receivers owe us nothing but a status; reading a little lets small replies close cleanly, and the cap
// keeps a hostile endpoint from streaming gigabytes into the worker.
const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'CommunityPlatform-Webhooks/1.0';
const FORBIDDEN = 'forbidden destination (private address)';

/** One delivery attempt. Never throws for network or receiver trouble; the result says what happened. */
export async function sendWebhook(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const outcome = await attempt(input, input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return { ...outcome, durationMs: Math.round(performance.now() - started) };
}

function attempt(input: SendInput, timeoutMs: number): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return Promise.resolve(failure('invalid url'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.resolve(failure('unsupported protocol'));
  // Node connects to an IP literal without calling `lookup`, so the guard has to see it here.
  const host = hostOf(url);
  if (!input.allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) {
    return Promise.resolve(failure(FORBIDDEN));
  }
  const body = Buffer.from(input.body, 'utf8');
  return post(url, body, headersFor(input, body.length), input.allowPrivate, timeoutMs);
}

function post(
  url: URL,
  body: Buffer,
  headers: http.OutgoingHttpHeaders,
  allowPrivate: boolean,
  timeoutMs: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    // agent: false gives each attempt a fresh socket, so the guarded lookup runs for every connection.
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: 'POST',
      headers,
      agent: false,
      lookup: guardedLookup(allowPrivate),
    });
    let answered: Outcome | null = null;
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    // A status that arrived in time stands even if the rest of the body is slow.
    const timer = setTimeout(
      () => finish({ ...(answered ?? failure(`timeout after ${timeoutMs} ms`)), timedOut: true }),
      timeoutMs,
    );

    request.on('error', (err) => finish(failure(describe(err))));
    request.on('response', (response) => {
      const outcome = classify(response.statusCode ?? 0, response.headers['retry-after']);
      answered = outcome;
      discardBody(response, () => finish(outcome));
    });
    request.end(body);
  });
}

/** Reads and drops the reply, calling `done` when it ends, fails, or passes MAX_RESPONSE_BYTES. */
function discardBody(response: http.IncomingMessage, done: () => void): void {
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received >= MAX_RESPONSE_BYTES) done();
  });
  response.on('end', done);
  response.on('close', done);
  response.on('error', done);
}

function headersFor(input: SendInput, contentLength: number): http.OutgoingHttpHeaders {
  const timestampSeconds = input.timestampSeconds ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'content-length': contentLength,
    'user-agent': USER_AGENT,
    'webhook-id': input.messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader({ ...input, timestampSeconds }),
  };
}

function classify(status: number, retryAfter: string | undefined): Outcome {
  const ok = status >= 200 && status < 300;
  return {
    ok,
    status,
    retryAfterSeconds: status === 429 || status === 503 ? parseRetryAfter(retryAfter) : null,
    error: ok
      ? null
      : status >= 300 && status < 400
        ? 'redirect not followed (3xx)'
        : `unexpected status ${status}`,
    gone: status === 410,
    timedOut: false,
  };
}

function failure(error: string): Outcome {
  return { ok: false, status: null, retryAfterSeconds: null, error, gone: false, timedOut: false };
}

/** `connect ECONNREFUSED`-style text: enough to diagnose, never the URL's query or anything sent. */
function describe(err: Error): string {
  // With several resolved addresses node tries each and reports them together; the first says enough.
  if (err instanceof AggregateError && err.errors[0] instanceof Error) return describe(err.errors[0]);
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (err instanceof ForbiddenDestinationError || code === 'EFORBIDDENDEST') return FORBIDDEN;
  if (code && syscall) return `${syscall} ${code}`;
  return code ?? 'request failed';
}
