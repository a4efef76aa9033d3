import { errorOf, type CommunityApiError } from './errors';
import { rateLimitOf, secondsUntilReset } from './rate-limit';
import type { RateLimit } from './types';

export interface TransportOptions {
  maxRetries: number;
  timeoutMs: number;
  maxRetryWaitMs: number;
  fetch: typeof fetch;
  onRateLimit(limit: RateLimit): void;
}

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Read a redirect as the answer instead of following it. */
  redirect?: boolean;
}

/** Statuses that say "not now": the request may be sent again (DESIGN.md §17). */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);
/** Answered before anything was done: safe to send again even without an Idempotency-Key. */
const REFUSED_UNDONE = new Set([408, 429, 503]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Exponential, with jitter (half fixed, half random) so clients that failed together spread out. */
const backoffMs = (attempt: number) => {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
};

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether the same request may go again: a POST without an Idempotency-Key (the OAuth protocol's)
 * only when the answer says nothing was done; `409 idempotency_in_progress` means the first attempt
 * is still running, and the next one will get its answer.
 */
function retryable(req: Outgoing, error: CommunityApiError): boolean {
  if (error.code === 'idempotency_in_progress') return true;
  if (!RETRYABLE.has(error.status)) return false;
  return repeatable(req) || REFUSED_UNDONE.has(error.status);
}

const repeatable = (req: Outgoing) => req.method !== 'POST' || 'Idempotency-Key' in req.headers;

/** How long to wait before the next attempt: what the API asked for, else backoff. */
function waitMs(error: CommunityApiError, headers: Headers, attempt: number): number {
  const seconds = error.retryAfter ?? (error.status === 429 ? secondsUntilReset(headers) : null);
  return seconds === null ? backoffMs(attempt) : seconds * 1000;
}

type Outcome<T> = { value: T; headers: Headers } | { error: CommunityApiError; headers: Headers };

/** One attempt: the answer read within `timeoutMs` (for a stream: its headers), or its error. */
async function attempt<T>(
  options: TransportOptions,
  req: Outgoing,
  read: (res: Response) => Promise<T>,
): Promise<Outcome<T>> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException('the API did not answer in time', 'TimeoutError')),
    options.timeoutMs,
  );
  try {
    const res = await options.fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal,
      redirect: req.redirect ? 'manual' : 'follow',
    });
    const limit = rateLimitOf(res.headers);
    if (limit) options.onRateLimit(limit);
    if (res.ok || (req.redirect && res.status >= 300 && res.status < 400))
      return { value: await read(res), headers: res.headers };
    return { error: await errorOf(res), headers: res.headers };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends `req` until it succeeds or may not be retried; `read` consumes the answer within the
 * attempt's timeout. Rejects with CommunityApiError for any non-2xx, or with the network error (or
 * the timeout) once retries are spent.
 */
export async function send<T>(
  options: TransportOptions,
  req: Outgoing,
  read: (res: Response) => Promise<T>,
): Promise<{ value: T; headers: Headers }> {
  for (let n = 0; ; n++) {
    const last = n >= options.maxRetries;
    let outcome: Outcome<T>;
    try {
      outcome = await attempt(options, req, read);
    } catch (err) {
      if (req.signal?.aborted || last || !repeatable(req)) throw err;
      await sleep(backoffMs(n), req.signal);
      continue;
    }
    if ('value' in outcome) return outcome;
    const { error, headers } = outcome;
    if (last || !retryable(req, error)) throw error;
    const wait = waitMs(error, headers, n);
    if (wait > options.maxRetryWaitMs) throw error;
    await sleep(wait, req.signal);
  }
}
