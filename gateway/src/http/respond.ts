import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply, type ErrorContext } from '@community/http-kit';
import type { Logger } from '@community/logging';
import { endLingering } from './read-body';

/** A JSON answer on a bare node:http response (HEAD gets the headers only). */
export function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendSerialisedJson(req, res, status, JSON.stringify(body), headers);
}

/** {@link sendJson} for a body that is JSON already, e.g. bytes prepared once at start. */
export function sendSerialisedJson(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  payload: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  const body = req.method === 'HEAD' ? undefined : payload;
  // A refusal of the body, before it was all read: the client may still be writing it.
  if (!req.complete && res.getHeader('Connection') === 'close') endLingering(req, res, body);
  else res.end(body);
}

/** Any error in the documented envelope, by the same mapping every service uses. */
export function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  logger: Logger,
  context: ErrorContext,
): void {
  const reply = errorReply(err, logger, context);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(req, res, reply.status, reply.body, reply.headers);
}
