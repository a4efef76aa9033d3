import type { IncomingMessage, ServerResponse } from 'node:http';

/** `CORS_ALLOWED_ORIGINS`: any origin, or these exactly (`scheme://host[:port]`). */
export type AllowedOrigins = '*' | ReadonlySet<string>;

const EXPOSED = [
  'ETag',
  'Link',
  'Location',
  'Retry-After',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotent-Replayed',
].join(', ');
const METHODS = 'GET, POST, PUT, DELETE';
const REQUEST_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id';
const MAX_AGE_SECONDS = '7200';

/** Adds `name` to the answer's `Vary`, keeping what is there. */
export function vary(res: ServerResponse, name: string): void {
  const current = res.getHeader('Vary');
  res.setHeader('Vary', current ? `${String(current)}, ${name}` : name);
}

/**
 * CORS for the API (DESIGN.md §10), before anything else: an allowed origin is echoed with the
 * headers a browser app needs to read, never with credentials. A preflight is answered here, `204`,
 * with no key and no count — from an origin that is not allowed too, only without the headers that
 * would let the browser go on. Returns whether the request has been answered (a preflight).
 */
export function answerCors(req: IncomingMessage, res: ServerResponse, allowed: AllowedOrigins): boolean {
  vary(res, 'Origin');
  const origin = req.headers.origin;
  const permitted = origin !== undefined && (allowed === '*' || allowed.has(origin));
  if (permitted) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  }
  const preflight =
    req.method === 'OPTIONS' && origin !== undefined && !!req.headers['access-control-request-method'];
  if (!preflight) return false;
  if (permitted) {
    res.setHeader('Access-Control-Allow-Methods', METHODS);
    res.setHeader('Access-Control-Allow-Headers', REQUEST_HEADERS);
    res.setHeader('Access-Control-Max-Age', MAX_AGE_SECONDS);
  }
  res.statusCode = 204;
  res.end();
  return true;
}
