import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import {
  assertScope,
  ForbiddenError,
  ROLE_SCOPES,
  UnauthorizedError,
  type Actor,
} from '@community/contracts';
import type { Sql } from '@community/db';
import { matchesHash } from '../domain/accounts/secret-hash';
import { findSession, type Session } from '../domain/accounts/sessions';
import type { KeyCreator } from '../domain/keys/manage-keys';

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
export async function keyCredential(sql: Sql, req: Request, res: Response): Promise<KeyCreator> {
  const actor = res.locals.actor as Actor | null;
  if (actor) {
    assertScope(actor, 'keys');
    return { userId: actor.userId, scopes: actor.scopes, expiresAt: actor.expiresAt ?? null };
  }
  const session = await currentSession(sql, req);
  if (!session) throw new UnauthorizedError('a key with the keys scope, or an account session, is required');
  if (!matchesHash(req.headers['x-csrf-token'], session.csrfHash)) {
    throw new ForbiddenError('the x-csrf-token header must carry the CSRF token of your session');
  }
  return { userId: session.userId, scopes: new Set(ROLE_SCOPES[session.role]), expiresAt: null };
}
