import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { AppError } from '@community/contracts';

/** The largest body any operation accepts (DESIGN.md §3): the gateway and every service enforce it. */
export const BODY_LIMIT = 64 * 1024;
/** The body-parser error type of a body that is not valid UTF-8. */
export const INVALID_UTF8 = 'entity.invalid_utf8';

/** Whether a request carries a body at all: GETs and most DELETEs do not. */
export function hasBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const isJsonType = (type: string | undefined) =>
  !!type && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type.trim());

/**
 * JSON bodies only, at most 64 KiB. A body with another media type is 415; unparseable JSON is 400
 * invalid_json, and so is one whose bytes are not valid UTF-8 (the decoder would silently put U+FFFD
 * in their place); too large is 413 (the mapping lives in the error handler). No body reads as `{}`.
 */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({
    limit: BODY_LIMIT,
    strict: false,
    type: () => true,
    verify: (_req, _res, raw) => {
      if (!isUtf8(raw)) throw Object.assign(new Error('invalid UTF-8'), { type: INVALID_UTF8 });
    },
  });
  // One layer, not two: every request without a body (every GET) passes it on its way.
  const body: RequestHandler = (req, res, next) => {
    if (!hasBody(req.headers)) {
      req.body = {};
      return next();
    }
    if (!isJsonType(req.headers['content-type'])) {
      return next(
        new AppError(
          'unsupported_media_type',
          'request bodies must be JSON sent with Content-Type: application/json',
        ),
      );
    }
    parse(req, res, next);
  };
  return [body];
}
