/** The error codes of DESIGN.md §3 with their HTTP status: the one table the error mapper reads. */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  query_too_complex: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  account_suspended: 403,
  forbidden: 403,
  post_locked: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_in_progress: 409,
  replay_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  concurrency_limited: 429,
  replay_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  search_timeout: 503,
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const VALIDATION_CODES = [
  'required',
  'invalid_type',
  'too_short',
  'too_long',
  'too_small',
  'too_big',
  'invalid_value',
  'unrecognized_key',
  'not_found',
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

export interface FieldError {
  field: string;
  code: ValidationCode;
  message: string;
}

/**
 * A failure the code anticipated: its message is safe to show to the caller.
 * Anything else that is thrown is untrusted and answered as a bare 500.
 */
export class AppError extends Error {
  readonly isTrusted = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(readonly errors: FieldError[]) {
    const [first] = errors;
    if (!first) throw new Error('ValidationError needs at least one field error');
    super('validation_error', first.message, { field: first.field, code: first.code, errors });
  }

  static single(field: string, code: ValidationCode, message: string): ValidationError {
    return new ValidationError([{ field, code, message }]);
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'resource') {
    super('not_found', `${what} not found`);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'you are not allowed to do this') {
    super('forbidden', message);
  }
}

export class InsufficientScopeError extends AppError {
  constructor(readonly requiredScope: string) {
    super('insufficient_scope', `this operation needs the "${requiredScope}" scope`, {
      required_scope: requiredScope,
    });
  }
}

/** Every key and token of a suspended account is refused (DESIGN.md §12): until when, and why. */
export class AccountSuspendedError extends AppError {
  constructor(suspension: { until: string | null; reason: string }) {
    super(
      'account_suspended',
      suspension.until === null
        ? 'this account is suspended until a moderator lifts it'
        : `this account is suspended until ${suspension.until}`,
      { until: suspension.until, reason: suspension.reason },
    );
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', message, details);
  }
}

export class PostLockedError extends AppError {
  constructor() {
    super('post_locked', 'this post is locked and accepts no new comments');
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'a valid API key is required') {
    super('unauthorized', message);
  }
}

/** A request with this Idempotency-Key is still running (DESIGN.md §10): retry in a second. */
export class IdempotencyInProgressError extends AppError {
  readonly retryAfterSeconds = 1;
  constructor() {
    super(
      'idempotency_in_progress',
      'a request with this Idempotency-Key is still being processed; retry in a second',
    );
  }
}

/** The Idempotency-Key was used before for another method, path or body (DESIGN.md §10). */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      'idempotency_key_reused',
      'this Idempotency-Key was used for a different request; use a new key for a new request',
    );
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(
    message = 'the service is temporarily unavailable',
    readonly retryAfterSeconds = 5,
    code: 'service_unavailable' | 'search_timeout' | 'overloaded' = 'service_unavailable',
  ) {
    super(code, message);
  }
}

/** A search that still ran into the statement timeout (DESIGN.md §21): counted, retry later. */
export class SearchTimeoutError extends ServiceUnavailableError {
  constructor(message = 'the search took too long; narrow it or try again shortly', retryAfterSeconds = 5) {
    super(message, retryAfterSeconds, 'search_timeout');
  }
}

/**
 * The gateway sends a service only so many requests at once, and a request found no free slot
 * within QUEUE_TIMEOUT_MS (DESIGN.md §18): uncharged, retry in a second.
 */
export class OverloadedError extends ServiceUnavailableError {
  constructor(service: string) {
    super(`the ${service} service is busy; try again in a second`, 1, 'overloaded');
  }
}

/** A search whose query text would cost more than one is allowed (DESIGN.md §21): a static check. */
export class QueryTooComplexError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('query_too_complex', message, details);
  }
}

/** This endpoint is replaying already (DESIGN.md §21): one replay at a time per endpoint. */
export class ReplayInProgressError extends AppError {
  constructor() {
    super('replay_in_progress', 'a replay to this endpoint is still running; wait for it to finish');
  }
}

/** The client took longer than the gateway waits to send its request body. */
export class RequestTimeoutError extends AppError {
  constructor(message = 'the request body did not arrive in time') {
    super('request_timeout', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'the request body is larger than 64 KiB') {
    super('payload_too_large', message);
  }
}

/** Every 429 (DESIGN.md §6, §21): `retry_after` and `Retry-After` say when to try again. */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code: RateLimitCode = 'rate_limit_exceeded',
  ) {
    super(code, message);
  }
}

export const RATE_LIMIT_CODES = ['rate_limit_exceeded', 'concurrency_limited', 'replay_limited'] as const;
export type RateLimitCode = (typeof RATE_LIMIT_CODES)[number];
