import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { currentLogContext, withLogContext } from '@community/logging';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane client `X-Request-Id` or makes one; the request passes it on to upstreams. */
export function takeRequestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
  req.headers['x-request-id'] = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * {@link takeRequestId} for express. With `logContext` every log line written while serving the
 * request carries the id; without, only the lines that read `res.locals.requestId` do.
 */
export function requestId({ logContext = true }: { logContext?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    const id = takeRequestId(req, res);
    res.locals.requestId = id;
    if (logContext) withLogContext({ requestId: id }, next);
    else next();
  };
}

/** The request id for a log line, when no log context adds it already. */
export function requestIdField(locals: Record<string, unknown>): { request_id?: string } {
  return locals.requestId && !currentLogContext() ? { request_id: String(locals.requestId) } : {};
}
