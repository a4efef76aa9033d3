import type { Request, Response } from 'express';
import type { Sql } from '@community/db';
import type { Session } from '../domain/accounts/sessions';
import { assertSessionCsrf, currentSession } from '../routes/session';
import { API_PAGE, LOGIN_PAGE } from './layout';

const HERE = 'https://account.invalid';

/**
 * Where to go after login: a same-site account page, or the API page. The parser decides, as a
 * browser would: `//host`, `/\\host`, schemes and `..` out of /account/ all land elsewhere and are
 * refused; what is kept is the path and query as parsed, never the raw text.
 */
export function safeNext(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.length > 2000 || !URL.canParse(raw, HERE))
    return API_PAGE;
  const url = new URL(raw, HERE);
  return url.origin === HERE && url.pathname.startsWith('/account/') ? url.pathname + url.search : API_PAGE;
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

type SessionHandler = (req: Request, res: Response, session: Session) => Promise<void>;

/** A handler for the signed-in user only; anyone else is sent to log in, coming back to `page`. */
export const signedIn =
  (sql: Sql, page: string, handle: SessionHandler) => async (req: Request, res: Response) => {
    const session = await sessionOrLogin(sql, req, res, page);
    if (session) await handle(req, res, session);
  };

/** {@link signedIn} for a form's POST: its CSRF token must be the session's. */
export const signedInForm = (sql: Sql, page: string, handle: SessionHandler) =>
  signedIn(sql, page, async (req, res, session) => {
    assertSessionCsrf(req, session);
    await handle(req, res, session);
  });

/** The caller's address as the gateway vouched for it (per-IP limits). */
export const clientIp = (res: Response) => String(res.locals.clientIp);
