import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

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
 * {@link takeRequestId} for express: the id in `res.locals.requestId`, which every log line about
 * the request takes from there ({@link requestIdField}). Not in an `AsyncLocalStorage` context: on
 * Node 20 one makes every promise of the process pay a hook (bench/RESULTS.md, "Services: the log
 * context's `AsyncLocalStorage` cost every request").
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    res.locals.requestId = takeRequestId(req, res);
    next();
  };
}

/** The request id for a log line about the request. */
export function requestIdField(locals: Record<string, unknown>): { request_id?: string } {
  return locals.requestId ? { request_id: String(locals.requestId) } : {};
}
