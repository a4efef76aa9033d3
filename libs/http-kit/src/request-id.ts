import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '@community/logging';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane client `X-Request-Id` or makes one; every log line of the request carries it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
    req.headers['x-request-id'] = id;
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    withLogContext({ requestId: id }, next);
  };
}
