import type { RateLimit } from './types';

/** The limit headers of an answer, or null when it has none (e.g. a `/.well-known` document). */
export function rateLimitOf(headers: Headers): RateLimit | null {
  const limit = headers.get('x-ratelimit-limit');
  if (limit === null) return null;
  return {
    limit: Number(limit),
    remaining: Number(headers.get('x-ratelimit-remaining')),
    reset: Number(headers.get('x-ratelimit-reset')),
    policy: headers.get('ratelimit-policy'),
  };
}

/**
 * Seconds until the windows that are spent reset, from the IETF `RateLimit` field (`"hour";r=0;t=42,
 * …`), else from `X-RateLimit-*`: how long a `429` without `Retry-After` should wait.
 */
export function secondsUntilReset(headers: Headers): number | null {
  const spent = (headers.get('ratelimit') ?? '')
    .split(',')
    .map((window) => /;r=(\d+);t=(\d+)/.exec(window))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === '0')
    .map((m) => Number(m[2]));
  if (spent.length) return Math.max(...spent);
  const shown = rateLimitOf(headers);
  return shown && shown.remaining === 0 ? Math.max(0, shown.reset - Date.now() / 1000) : null;
}
