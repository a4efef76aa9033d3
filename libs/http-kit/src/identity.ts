import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { isRole, UnauthorizedError, effectiveScopes, type Actor } from '@community/contracts';
import { currentLogContext } from '@community/logging';

/** Headers the gateway sets; services trust them only with a valid signature. */
export const IDENTITY_HEADERS = {
  userId: 'x-user-id',
  role: 'x-user-role',
  scopes: 'x-user-scopes',
  timestamp: 'x-internal-timestamp',
  signature: 'x-internal-signature',
} as const;

const MAX_SKEW_SECONDS = 300;

export interface SignInput {
  method: string;
  /** The path and query exactly as the service will see it (`req.originalUrl`). */
  url: string;
  actor: Actor | null;
  now?: number;
}

function payload(
  method: string,
  url: string,
  ts: string,
  userId: string,
  role: string,
  scopes: string,
): string {
  // An empty query (`/posts?`) reaches the service as `/posts` through some clients and proxies.
  const target = url.endsWith('?') ? url.slice(0, -1) : url;
  return ['v1', ts, method.toUpperCase(), target, userId, role, scopes].join('\n');
}

function sign(token: string, data: string): string {
  return createHmac('sha256', token).update(data).digest('base64url');
}

/** The identity headers for one upstream request, signed with INTERNAL_TOKEN. */
export function signIdentity(
  token: string,
  { method, url, actor, now = Date.now() }: SignInput,
): Record<string, string> {
  const ts = String(Math.floor(now / 1000));
  const userId = actor ? String(actor.userId) : '';
  const role = actor?.role ?? '';
  const scopes = actor ? [...actor.scopes].sort().join(' ') : '';
  const headers: Record<string, string> = {
    [IDENTITY_HEADERS.timestamp]: ts,
    [IDENTITY_HEADERS.signature]: sign(token, payload(method, url, ts, userId, role, scopes)),
  };
  if (actor) {
    headers[IDENTITY_HEADERS.userId] = userId;
    headers[IDENTITY_HEADERS.role] = role;
    headers[IDENTITY_HEADERS.scopes] = scopes;
  }
  return headers;
}

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : '');

/** Verifies the gateway's signature; the caller (or null for an anonymous call) lands in `res.locals.actor`. */
export function verifyIdentity(token: string): RequestHandler {
  return (req, res, next) => {
    const ts = header(req.headers[IDENTITY_HEADERS.timestamp]);
    const given = header(req.headers[IDENTITY_HEADERS.signature]);
    const userId = header(req.headers[IDENTITY_HEADERS.userId]);
    const role = header(req.headers[IDENTITY_HEADERS.role]);
    const scopes = header(req.headers[IDENTITY_HEADERS.scopes]);
    const expected = sign(token, payload(req.method, req.originalUrl, ts, userId, role, scopes));
    const fresh = Math.abs(Date.now() / 1000 - Number(ts)) <= MAX_SKEW_SECONDS;
    const valid =
      fresh && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    if (!valid) return next(new UnauthorizedError('requests must come through the API gateway'));
    if (!userId) {
      res.locals.actor = null;
      return next();
    }
    if (!/^[1-9]\d{0,9}$/.test(userId) || !isRole(role)) {
      return next(new UnauthorizedError('requests must come through the API gateway'));
    }
    const actor: Actor = { userId: Number(userId), role, scopes: effectiveScopes(role, scopes.split(' ')) };
    res.locals.actor = actor;
    const ctx = currentLogContext();
    if (ctx) ctx.accountId = actor.userId;
    next();
  };
}

/** The verified caller; a 401 when the route needs one and the gateway sent none. */
export function requireActor(locals: Record<string, unknown>): Actor {
  const actor = locals.actor as Actor | null | undefined;
  if (!actor) throw new UnauthorizedError();
  return actor;
}
