import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { assertScope, ROLE_SCOPES } from '@community/access';
import { ForbiddenError, UnauthorizedError, type Actor } from '@community/contracts';
import type { Sql } from '@community/db';
import { isCrossOrigin } from '@community/http-kit';
import { matchesHash } from '../domain/accounts/secret-hash';
import { findSession, SESSION_TTL_SECONDS, type Session } from '../domain/accounts/sessions';
import type { KeyCreator } from '../domain/keys/manage-keys';
import { formValue } from '@community/http-kit';

/*
 * The account session and its CSRF defences, for the account pages and the key API alike: the
 * cookies, the session behind them, the form tokens (double submit before login, the session's own
 * after) and the `x-csrf-token` header of the key API.
 */

export const SESSION_COOKIE = 'cp_session';

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[name] : undefined;
}

export const sessionToken = (req: Request) => readCookie(req, SESSION_COOKIE);

export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  // Compare bytes, not characters: a non-ASCII string of the right length has more bytes.
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function currentSession(sql: Sql, req: Request): Promise<Session | null> {
  return findSession(sql, sessionToken(req));
}

/**
 * Who may manage keys (DESIGN.md §5): a bearer key with the `keys` scope, or the account session
 * cookie with its CSRF token in `x-csrf-token` — how the account pages mint the first key.
 */
export async function keyCredential(deps: { sql: Sql }, req: Request, res: Response): Promise<KeyCreator> {
  const actor = res.locals.actor as Actor | null;
  if (actor) {
    assertScope(actor, 'keys');
    return { userId: actor.userId, scopes: actor.scopes, expiresAt: actor.expiresAt ?? null };
  }
  // Another origin's page never acts with the account's session (DESIGN.md §10), whatever the browser sends.
  const session = isCrossOrigin(req.headers) ? null : await currentSession(deps.sql, req);
  if (!session) throw new UnauthorizedError('a key with the keys scope, or an account session, is required');
  if (!matchesHash(req.headers['x-csrf-token'], session.csrfHash)) {
    throw new ForbiddenError('the x-csrf-token header must carry the CSRF token of your session');
  }
  return sessionActor(session);
}

/**
 * Whose `Idempotency-Key` a request without a bearer sends (DESIGN.md §10): the account of its
 * session, where the key API would accept that session; null otherwise (the client address owns it).
 */
export async function sessionOwner(sql: Sql, req: Request): Promise<string | null> {
  if (isCrossOrigin(req.headers)) return null;
  const session = await currentSession(sql, req);
  return session ? `acct:${session.userId}` : null;
}

/**
 * The signed-in user as a caller: a session may do and grant whatever the user's role allows, on the
 * key API and the account pages alike, and does not expire as a key does.
 */
export function sessionActor(session: Session): Actor & KeyCreator {
  return {
    userId: session.userId,
    role: session.role,
    scopes: new Set(ROLE_SCOPES[session.role]),
    expiresAt: null,
  };
}

// Cookies

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

// CSRF

export const CSRF_FIELD = '_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A missing or wrong CSRF token: the page the user submitted from is stale (or not ours). */
export class CsrfError extends ForbiddenError {
  constructor() {
    super('This form has expired; reload and try again.');
  }
}

/**
 * The token for the forms shown before login (double submit): the browser's `cp_csrf` cookie, or a
 * new one. Reusing it keeps several open tabs working.
 */
export function anonymousCsrfToken(req: Request, res: Response): string {
  const current = readCookie(req, CSRF_COOKIE);
  if (current && TOKEN.test(current)) return current;
  const token = randomBytes(32).toString('base64url');
  setCsrfCookie(req, res, token);
  return token;
}

// Tokens are base64url: anything else is refused before the constant-time comparison.
const matches = (given: string, expected: string | undefined) =>
  !!expected && /^[A-Za-z0-9_-]+$/.test(given) && sameSecret(given, expected);

export function assertAnonymousCsrf(req: Request): void {
  if (!matches(formValue(req.body, CSRF_FIELD), readCookie(req, CSRF_COOKIE))) throw new CsrfError();
}

export function assertSessionCsrf(req: Request, session: Session): void {
  if (!matchesHash(formValue(req.body, CSRF_FIELD), session.csrfHash)) throw new CsrfError();
}
