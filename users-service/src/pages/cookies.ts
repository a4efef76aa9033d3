import type { CookieOptions, Request, Response } from 'express';
import { SESSION_TTL_SECONDS } from '../domain/accounts/sessions';
import { SESSION_COOKIE } from '../routes/credentials';

/** The double-submit CSRF cookie of the forms shown before there is a session. */
export const CSRF_COOKIE = 'cp_csrf';

// `req.secure` follows X-Forwarded-Proto from the gateway (the app trusts its proxy).
const base = (req: Request): CookieOptions => ({ httpOnly: true, sameSite: 'lax', secure: req.secure });

/** Path=/ so the key API under /api/v1/keys sees the session too (with its x-csrf-token header). */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, { ...base(req), path: '/', maxAge: SESSION_TTL_SECONDS * 1000 });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { ...base(req), path: '/' });
}

/** A browser-session cookie: a login form left open overnight still submits. */
export function setCsrfCookie(req: Request, res: Response, token: string): void {
  res.cookie(CSRF_COOKIE, token, { ...base(req), path: '/account' });
}
