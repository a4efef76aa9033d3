import express, { type RequestHandler } from 'express';
import { AppError } from '@community/contracts';

export const BODY_LIMIT = '64kb';

function hasBody(headers: Record<string, unknown>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const isJsonType = (type: string | undefined) =>
  !!type && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type.trim());

/**
 * JSON bodies only, at most 64 KiB. A body with another media type is 415; unparseable JSON is 400
 * invalid_json; too large is 413 (the mapping lives in the error handler). No body reads as `{}`.
 */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({ limit: BODY_LIMIT, strict: false, type: () => true });
  const requireJson: RequestHandler = (req, _res, next) => {
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
    next();
  };
  const skipEmpty: RequestHandler = (req, res, next) =>
    hasBody(req.headers) ? parse(req, res, next) : next();
  return [requireJson, skipEmpty];
}
