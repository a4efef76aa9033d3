import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, ERROR_STATUS, NotFoundError } from '@community/contracts';
import { isConnectionError } from '@community/db';
import { MethodNotAllowedError, requestIdField } from '@community/http-kit';
import type { Logger } from '@community/logging';
import { CsrfError } from '../routes/session';
import { html } from './html';
import { renderPage } from './layout';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Not signed in',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Method not allowed',
  413: 'Form too large',
  429: 'Too many requests',
  503: 'Service unavailable',
};

const sentence = (text: string) => (text[0]!.toUpperCase() + text.slice(1)).replace(/([^.])$/, '$1.');

function errorPage(res: Response, status: number, title: string, message: string): void {
  renderPage(res, status, {
    title,
    main: html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/account">Back to your account</a></p>`,
  });
}

export const notFoundPage: RequestHandler = (_req, _res, next) => next(new NotFoundError('page'));

/**
 * Errors under /account as HTML pages, never JSON and never a stack: trusted errors keep their
 * message; anything else is logged with the request id and shown as a plain apology.
 */
export function pageErrors(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    if (err instanceof CsrfError) return errorPage(res, 403, 'Form expired', err.message);
    if (err instanceof AppError) {
      const status = ERROR_STATUS[err.code];
      if (err instanceof MethodNotAllowedError) res.setHeader('Allow', err.allow.join(', '));
      return errorPage(res, status, TITLES[status] ?? 'Error', sentence(err.message));
    }
    // body-parser's refusals (too large, bad encoding) carry a 4xx status and are the client's doing.
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500 && (err as { type?: unknown }).type) {
      return errorPage(res, status, TITLES[status] ?? 'Bad request', 'The form could not be read.');
    }
    if (isConnectionError(err)) {
      logger.warn(
        { err: { code: (err as { code?: string }).code }, ...requestIdField(res.locals) },
        'database unreachable',
      );
      res.setHeader('Retry-After', '5');
      return errorPage(res, 503, TITLES[503]!, 'Please try again in a few seconds.');
    }
    logger.error(
      { err, method: req.method, path: req.path, ...requestIdField(res.locals) },
      'unhandled error',
    );
    const id = String(res.locals.requestId ?? '');
    errorPage(
      res,
      500,
      'Something went wrong',
      `Please try again. If it keeps happening, quote request id ${id}.`,
    );
  };
}
