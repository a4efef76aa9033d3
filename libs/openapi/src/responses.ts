import { DEFAULT_LIMIT, ERROR_STATUS, MAX_ID, MAX_LIMIT, type ErrorCode } from '@community/contracts';
import { ERROR_EXAMPLES } from './error-examples';

type Json = Record<string, unknown>;
const integer = (minimum: number) => ({ type: 'integer', minimum });

/** Response headers (DESIGN.md §3 and §6). */
export const HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed in the window with fewer requests left (hourly or daily; tie: hourly). Per account for keys, per client address without one.',
    schema: integer(1),
  },
  'X-RateLimit-Remaining': { description: 'Requests left in that window.', schema: integer(0) },
  'X-RateLimit-Reset': {
    description: 'Unix time in seconds at which that window resets.',
    schema: integer(0),
  },
  RateLimit: {
    description:
      'IETF RateLimit field: what is left of each window and the seconds until it resets, e.g. `"hour";r=99;t=3599, "day";r=999;t=86399` (the account pages: `hour` only).',
    schema: { type: 'string', pattern: '^"hour";r=\\d+;t=\\d+' },
  },
  'RateLimit-Policy': {
    description:
      'IETF RateLimit-Policy field: the quota and length in seconds of each window, e.g. `"hour";q=100;w=3600, "day";q=1000;w=86400`.',
    schema: { type: 'string', pattern: '^"hour";q=\\d+;w=3600' },
  },
  ETag: {
    description:
      'Strong validator of the answer: a hash of its body bytes. Send it back in `If-None-Match` to get `304` while nothing changed.',
    schema: { type: 'string', pattern: '^"[^"]+"$' },
  },
  'X-Request-Id': {
    description: 'Identifies the request in the logs; echoed when the client sent a sane one.',
    schema: { type: 'string', minLength: 1 },
  },
  Location: {
    description: 'Path of the created resource.',
    schema: { type: 'string', pattern: '^/api/v1/' },
  },
  Link: {
    description:
      'RFC 8288 links `first`, `last` and, where they exist, `prev` and `next`; each keeps the filters, sort and `limit` of the request.',
    schema: { type: 'string', pattern: 'rel="first"' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: integer(1) },
  'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string', const: 'Bearer' } },
  'Cache-Control': {
    description: 'The answer holds a secret or is good for this request only: `no-store`.',
    schema: { type: 'string', const: 'no-store' },
  },
  Pragma: {
    description: '`no-cache`, for HTTP/1.0 caches (RFC 6749 §5.1).',
    schema: { type: 'string', const: 'no-cache' },
  },
};

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

/** Every header is required where it is referenced; the few optional uses are written inline. */
export const HEADER_COMPONENTS = Object.fromEntries(
  Object.entries(HEADERS).map(([name, spec]) => [name, { ...spec, required: true }]),
);

/**
 * Headers of every answer: the request id always, the limit headers once the limiter has counted
 * (an answer that failed before that, like a 503 while keys cannot be checked, may lack them).
 */
export function commonHeaders(limited = true): Record<string, Json> {
  const headers: Record<string, Json> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  for (const name of RATE_LIMIT_HEADERS)
    headers[name] = limited ? ref('headers', name) : { ...HEADERS[name], required: false };
  return headers;
}

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const PARAMETERS: Record<string, Json> = {
  Page: {
    name: 'page',
    in: 'query',
    description: 'Page number; a page past the end is an empty `data`.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_ID, default: 1 },
  },
  Limit: {
    name: 'limit',
    in: 'query',
    description: 'Items per page.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
};

interface ErrorResponse {
  name: string;
  description: string;
  headers?: string[];
}

/** The shared error answers, one per status; their bodies are the error envelope (DESIGN.md §3). */
export const ERROR_RESPONSES: Record<number, ErrorResponse> = {
  400: {
    name: 'BadRequest',
    description:
      'A field or query parameter fails validation, the body is not JSON, or a search holds more than 16 terms or 8 `or` branches (`query_too_complex`).',
  },
  401: {
    name: 'Unauthorized',
    description: 'The key is missing, malformed, unknown, revoked or expired.',
    headers: ['WWW-Authenticate', 'Cache-Control'],
  },
  403: {
    name: 'Forbidden',
    description:
      'The key lacks the scope (`insufficient_scope`, with `details.required_scope`), its account is suspended (`account_suspended`, with `details.until` and `details.reason`), you are not the owner or your role is too low (`forbidden`), or the post is locked (`post_locked`).',
  },
  404: {
    name: 'NotFound',
    description: 'No such resource (also for ids that are not integers in 1..2147483647).',
  },
  408: {
    name: 'RequestTimeout',
    description:
      'The body did not arrive within the gateway’s `BODY_TIMEOUT_MS` (a slow or stalled client); the connection is closed.',
  },
  409: {
    name: 'Conflict',
    description:
      'A uniqueness rule or the state of the resource forbids this (`conflict`), a request with the same `Idempotency-Key` is still running (`idempotency_in_progress`, with `Retry-After: 1`), or a replay to this webhook endpoint is still running (`replay_in_progress`).',
  },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than 64 KiB.' },
  415: {
    name: 'UnsupportedMediaType',
    description: 'A body was sent without `Content-Type: application/json`.',
  },
  422: {
    name: 'IdempotencyKeyReused',
    description:
      'This `Idempotency-Key` was used in the last 24 hours for a different method, path or body (`idempotency_key_reused`); nothing was done.',
  },
  429: {
    name: 'TooManyRequests',
    description:
      'A rate limit is exceeded; nothing was counted. `retry_after` (and `Retry-After`) say how many seconds until the exceeded window resets. On a search (`q`) or a user lookup it may instead mean that too many searches are running (`Retry-After: 1`); such a request counts like any answered one. `concurrency_limited`: the account (or address, without a key) has as many requests in flight as its plan allows (`Retry-After: 1`, uncharged). `replay_limited`: the endpoint’s or account’s daily replay allowance is used up.',
    headers: ['Retry-After'],
  },
  500: {
    name: 'InternalError',
    description: 'An unexpected failure; `details.request_id` matches `X-Request-Id`.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'A service is down or slower than the gateway waits (`service_unavailable`), a search ran into its time limit (`search_timeout`, counted), or the service has as many requests in flight as the gateway sends it and none finished within the gateway’s wait bound (`overloaded`, `Retry-After: 1`, uncharged); try again after `Retry-After`.',
    headers: ['Retry-After'],
  },
};

export function errorSchemaName(status: number): string {
  const { name } = ERROR_RESPONSES[status]!;
  return name.endsWith('Error') ? name : `${name}Error`;
}

/** The answer to a GET whose `If-None-Match` names the current ETag: free (DESIGN.md §10). */
export function notModifiedResponse(limited = true): Json {
  return {
    description:
      'Not modified: `If-None-Match` names the current `ETag`. No body, and not counted in either window: the limit headers show the budget after the refund.',
    headers: { ...commonHeaders(limited), ETag: ref('headers', 'ETag') },
  };
}

/** `limited: false` for an operation served before the limits (its answers carry no X-RateLimit-*). */
export function errorResponseComponent(status: number, limited = true): Json {
  const spec = ERROR_RESPONSES[status]!;
  const codes = (Object.keys(ERROR_EXAMPLES) as (keyof typeof ERROR_EXAMPLES)[]).filter(
    (code) => ERROR_STATUS[code as ErrorCode] === status,
  );
  const headers: Record<string, Json> = commonHeaders(limited && status !== 503 && status !== 500);
  for (const name of spec.headers ?? []) headers[name] = ref('headers', name);
  return {
    description: spec.description,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', errorSchemaName(status)),
        examples: Object.fromEntries(codes.map((code) => [code, { value: ERROR_EXAMPLES[code] }])),
      },
    },
  };
}
