import type { Request, Response } from 'express';
import type { Sql } from '@community/db';
import type { Session } from '../domain/accounts/sessions';
import { currentSession } from '../routes/credentials';
import { API_PAGE, LOGIN_PAGE } from './layout';

// Only account pages, only plain characters: no scheme, no `//host`, no backslashes, no `..`.
const SAFE_NEXT = /^\/account\/[A-Za-z0-9\-_/]*(?:\?[A-Za-z0-9\-_.=&%+~]*)?$/;

/** Where to go after login: a same-site account page, or the API page. */
export function safeNext(raw: unknown): string {
  return typeof raw === 'string' && SAFE_NEXT.test(raw) && !raw.includes('//') ? raw : API_PAGE;
}

export const loginUrl = (next: string) => `${LOGIN_PAGE}?next=${encodeURIComponent(next)}`;

/**
 * The signed-in user, or null after answering with a 303 to the login page that comes back to
 * `returnTo` (a POST comes back to the page its form was on).
 */
export async function sessionOrLogin(sql: Sql, req: Request, res: Response, returnTo?: string) {
  const session: Session | null = await currentSession(sql, req);
  if (!session) res.redirect(303, loginUrl(returnTo ?? req.originalUrl));
  return session;
}

/** The caller's address as the gateway vouched for it (per-IP limits). */
export const clientIp = (res: Response) => String(res.locals.clientIp);
