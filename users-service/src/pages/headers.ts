import { randomBytes } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

const policy = (nonce: string, formTargets: string[] = []) =>
  [
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    `script-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: https:",
    ["form-action 'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

/**
 * The headers every account page carries; returns the response's script nonce. Idempotent, so an
 * error page rendered before the middleware ran (a bad gateway signature) still gets them.
 */
export function securityHeaders(res: Response): string {
  const existing: unknown = res.locals.cspNonce;
  if (typeof existing === 'string') return existing;
  const nonce = randomBytes(16).toString('base64');
  res.locals.cspNonce = nonce;
  res.setHeader('Content-Security-Policy', policy(nonce));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  // Pages show CSRF tokens, and one shows a new API key: nothing here may be cached anywhere.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  return nonce;
}

export const pageHeaders: RequestHandler = (_req, res, next) => {
  securityHeaders(res);
  next();
};

/**
 * Lets this page's forms end up at `origin`: browsers apply form-action to the redirects that follow a
 * form post, and the OAuth consent form's answer is a redirect to the app.
 */
export function allowFormRedirectTo(res: Response, origin: string): void {
  res.setHeader('Content-Security-Policy', policy(securityHeaders(res), [origin]));
}
