import type { ErrorRequestHandler, Request } from 'express';
import { InvalidRequestError, OAuthError } from '@node-oauth/oauth2-server';
import { AppError, ERROR_STATUS, isOAuthErrorCode, type OAuthErrorBody } from '@community/contracts';
import { isConnectionError } from '@community/db';
import { MethodNotAllowedError, requestIdField } from '@community/http-kit';
import type { Logger } from '@community/logging';

interface OAuthFailure {
  status: number;
  error: OAuthErrorBody['error'];
  description: string;
}

/** The parameters of a form body; RFC 6749 §3.2 forbids repeating one. */
export function formParams(req: Request): Record<string, string> {
  if (!req.is('application/x-www-form-urlencoded')) {
    throw new InvalidRequestError('Invalid request: content must be application/x-www-form-urlencoded');
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string')
      throw new InvalidRequestError(`Invalid request: \`${name}\` is given more than once`);
  }
  return body as Record<string, string>;
}

function describe(
  err: unknown,
  logger: Logger,
  req: Request,
  requestId: { request_id?: string },
): OAuthFailure {
  // The library's own faults (e.g. `invalid_argument`, a 500) are not RFC 6749 codes: server errors.
  if (err instanceof OAuthError && err.name !== 'server_error' && isOAuthErrorCode(err.name)) {
    return { status: err.code, error: err.name, description: err.message };
  }
  const inner: unknown = err instanceof OAuthError ? (err as { inner?: unknown }).inner : err;
  if (inner instanceof MethodNotAllowedError) {
    return { status: 405, error: 'invalid_request', description: inner.message };
  }
  if (inner instanceof AppError) {
    return { status: ERROR_STATUS[inner.code], error: 'invalid_request', description: inner.message };
  }
  const bodyStatus = (inner as { status?: unknown; type?: unknown } | null)?.status;
  if (typeof bodyStatus === 'number' && bodyStatus < 500 && (inner as { type?: unknown }).type) {
    return {
      status: bodyStatus,
      error: 'invalid_request',
      description: 'the request body could not be read',
    };
  }
  if (isConnectionError(inner)) {
    logger.warn({ err: { code: (inner as { code?: string }).code }, ...requestId }, 'database unreachable');
    return { status: 503, error: 'temporarily_unavailable', description: 'try again in a few seconds' };
  }
  logger.error({ err: inner, method: req.method, path: req.path, ...requestId }, 'unhandled error');
  return { status: 500, error: 'server_error', description: 'an internal error occurred' };
}

/**
 * Errors of the OAuth protocol endpoints in RFC 6749 §5.2 form — `{error, error_description}`, never
 * cached — instead of the API envelope, because OAuth clients parse exactly that.
 */
export function oauthErrors(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const failure = describe(err, logger, req, requestIdField(res.locals));
    if (err instanceof MethodNotAllowedError) res.setHeader('Allow', err.allow.join(', '));
    if (failure.status === 503) res.setHeader('Retry-After', '5');
    // RFC 6749 §5.2: a client that tried HTTP authentication learns which scheme to use.
    if (failure.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const body: OAuthErrorBody = { error: failure.error, error_description: failure.description };
    res.status(failure.status).json(body);
  };
}
