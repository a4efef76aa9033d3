import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { ForbiddenError } from '@community/contracts';
import { matchesHash } from '../domain/accounts/secret-hash';
import type { Session } from '../domain/accounts/sessions';
import { readCookie, sameSecret } from '../routes/credentials';
import { CSRF_COOKIE, setCsrfCookie } from './cookies';
import { formValue } from './forms';

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
