import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  AppError,
  ERROR_STATUS,
  NotFoundError,
  RateLimitedError,
  IdempotencyInProgressError,
  ServiceUnavailableError,
} from '@community/contracts';
import { isConnectionError } from '@community/db';
import type { Logger } from '@community/logging';
import { INVALID_UTF8 } from './body';
import { requestIdField } from './request-id';
import { FAULT_HEADER, REQUEST_FAULT, REQUEST_FAULT_CODES } from './fault';
import { MethodNotAllowedError } from './resource';

/** body-parser's error types, mapped to the envelope's codes. */
const BODY_ERRORS: Record<string, AppError> = {
  'entity.parse.failed': new AppError('invalid_json', 'the request body is not valid JSON'),
  [INVALID_UTF8]: new AppError('invalid_json', 'the request body is not valid UTF-8'),
  'entity.too.large': new AppError('payload_too_large', 'the request body is larger than 64 KiB'),
  'charset.unsupported': new AppError(
    'unsupported_media_type',
    'the request body must be UTF-8 encoded JSON',
  ),
  'encoding.unsupported': new AppError(
    'unsupported_media_type',
    'the request body uses an unsupported encoding',
  ),
  'request.aborted': new AppError('invalid_json', 'the request body ended before it was complete'),
};

export function notFound(): RequestHandler {
  return (_req, _res, next) => next(new NotFoundError('route'));
}

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Where the error happened, for the log line of an unexpected one. */
export interface ErrorContext {
  method: string;
  path: string;
  requestId?: string;
}

/**
 * The one place an error becomes a response: trusted errors keep their message, others never leak.
 * Framework-free, so the gateway's raw hot path and express's error middleware answer alike.
 */
export function errorReply(err: unknown, logger: Logger, context: ErrorContext): ErrorReply {
  const known = toAppError(err);
  const { method, path, requestId } = context;
  if (!known && isConnectionError(err)) {
    logger.warn(
      { err: { code: (err as { code?: string }).code }, method, path, ...requestIdField({ requestId }) },
      'database unreachable',
    );
  } else if (!known && lostRace(err)) {
    logger.warn(
      { err, method, path, ...requestIdField({ requestId }) },
      'transaction undone for racing another',
    );
  } else if (!known) {
    logger.error({ err, method, path, ...requestIdField({ requestId }) }, 'unhandled error');
  }
  const error = known ?? unavailable(err);
  if (!error) {
    return {
      status: 500,
      headers: {},
      body: {
        error: 'internal_error',
        message: 'an internal error occurred; quote the request id when reporting it',
        details: { request_id: context.requestId },
      },
    };
  }
  const headers: Record<string, string> = {};
  if (error instanceof MethodNotAllowedError) headers.Allow = error.allow.join(', ');
  if (error instanceof ServiceUnavailableError || error instanceof IdempotencyInProgressError)
    headers['Retry-After'] = String(error.retryAfterSeconds);
  const retryAfter =
    error instanceof RateLimitedError ? Math.max(1, Math.ceil(error.retryAfterSeconds)) : null;
  if (retryAfter !== null) headers['Retry-After'] = String(retryAfter);
  if (REQUEST_FAULT_CODES.has(error.code)) headers[FAULT_HEADER] = REQUEST_FAULT;
  if (error.code === 'unauthorized') {
    headers['WWW-Authenticate'] = 'Bearer';
    headers['Cache-Control'] = 'no-store';
  }
  return {
    status: ERROR_STATUS[error.code],
    headers,
    body: {
      error: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(retryAfter !== null ? { retry_after: retryAfter } : {}),
    },
  };
}

/** express's error middleware over {@link errorReply}. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const requestId = res.locals.requestId as string | undefined;
    const reply = errorReply(err, logger, { method: req.method, path: req.path, requestId });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.set(reply.headers).status(reply.status).json(reply.body);
  };
}

/** PostgreSQL's codes for a transaction it rolled back for racing another: sent again, it can succeed. */
const RACE_CODES = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure

const lostRace = (err: unknown) => RACE_CODES.has((err as { code?: unknown } | null)?.code as string);

/** A failure that is the database's state right now, not the request's fault: a 503 to retry. */
function unavailable(err: unknown): ServiceUnavailableError | null {
  if (isConnectionError(err)) return new ServiceUnavailableError();
  if (lostRace(err))
    return new ServiceUnavailableError('this request raced another one and was undone; send it again', 1);
  return null;
}

function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  // A path parameter that is not valid percent-encoding cannot name a resource.
  if (err instanceof URIError) return new NotFoundError('route');
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) return BODY_ERRORS[type];
  return null;
}
