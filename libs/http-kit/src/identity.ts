import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { RequestHandler } from 'express';
import { effectiveScopes } from '@community/access';
import { isRole, toTimestamp, UnauthorizedError, type Actor } from '@community/contracts';

/** Headers the gateway sets; services trust them only with a valid signature. */
export const IDENTITY_HEADERS = {
  userId: 'x-user-id',
  role: 'x-user-role',
  scopes: 'x-user-scopes',
  /** When the presented credential expires (`YYYY-MM-DDThh:mm:ssZ`), absent when it does not. */
  expires: 'x-user-expires',
  clientIp: 'x-internal-client-ip',
  timestamp: 'x-internal-timestamp',
  signature: 'x-internal-signature',
} as const;

const MAX_SKEW_SECONDS = 300;

export interface SignInput {
  method: string;
  /** The path and query exactly as the service will see it (`req.originalUrl`). */
  url: string;
  actor: Actor | null;
  /** The caller's address as the gateway saw it, for per-IP limits in the services. */
  clientIp?: string;
  now?: number;
}

interface SignedFields {
  ts: string;
  method: string;
  url: string;
  userId: string;
  role: string;
  scopes: string;
  clientIp: string;
  expires: string;
}

function payload(fields: SignedFields): string {
  // An empty query (`/posts?`) reaches the service as `/posts` through some clients and proxies.
  const target = fields.url.endsWith('?') ? fields.url.slice(0, -1) : fields.url;
  const { ts, method, userId, role, scopes, clientIp, expires } = fields;
  const signed = ['v1', ts, method.toUpperCase(), target, userId, role, scopes, clientIp];
  // Only when there is one: a credential without expiry signs as before, so a gateway and services
  // of the previous release still understand each other during a rolling upgrade.
  if (expires) signed.push(expires);
  return signed.join('\n');
}

/** The token as a key object, made once: a string key is converted again by every HMAC. */
const secretKeys = new Map<string, KeyObject>();

function secretKey(token: string): KeyObject {
  let key = secretKeys.get(token);
  if (!key) {
    key = createSecretKey(token, 'utf8');
    secretKeys.set(token, key);
  }
  return key;
}

function sign(token: string, fields: SignedFields): string {
  return createHmac('sha256', secretKey(token)).update(payload(fields)).digest('base64url');
}

/** An actor's scopes as signed, sorted: kept per set (the gateway keeps one actor per credential). */
const scopeTexts = new WeakMap<ReadonlySet<string>, string>();

function scopeText(scopes: ReadonlySet<string>): string {
  let text = scopeTexts.get(scopes);
  if (text === undefined) {
    text = [...scopes].sort().join(' ');
    scopeTexts.set(scopes, text);
  }
  return text;
}

/** The identity headers for one upstream request, signed with INTERNAL_TOKEN. */
export function signIdentity(token: string, input: SignInput): Record<string, string> {
  const { method, url, actor, clientIp = '', now = Date.now() } = input;
  const fields: SignedFields = {
    ts: String(Math.floor(now / 1000)),
    method,
    url,
    userId: actor ? String(actor.userId) : '',
    role: actor?.role ?? '',
    scopes: actor ? scopeText(actor.scopes) : '',
    clientIp,
    expires: actor?.expiresAt ? toTimestamp(actor.expiresAt) : '',
  };
  const headers: Record<string, string> = {
    [IDENTITY_HEADERS.timestamp]: fields.ts,
    [IDENTITY_HEADERS.signature]: sign(token, fields),
  };
  if (clientIp) headers[IDENTITY_HEADERS.clientIp] = clientIp;
  if (actor) {
    headers[IDENTITY_HEADERS.userId] = fields.userId;
    headers[IDENTITY_HEADERS.role] = fields.role;
    headers[IDENTITY_HEADERS.scopes] = fields.scopes;
    if (fields.expires) headers[IDENTITY_HEADERS.expires] = fields.expires;
  }
  return headers;
}

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : '');

const signedWith = (token: string, fields: SignedFields, given: string) => {
  const expected = sign(token, fields);
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
};

/** What a request signed by the gateway says: its caller (null: anonymous) and the client's address. */
export interface VerifiedIdentity {
  actor: Actor | null;
  /** Empty when the gateway sent none. */
  clientIp: string;
}

/** A request as far as its signature covers it. */
export interface SignedRequest {
  method: string;
  /** The path and query as sent (`req.originalUrl`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The identity the gateway signed on a request, made with `token` or, during a rotation, with
 * `previous` (INTERNAL_TOKEN_PREVIOUS, docs/operations.md); null when the signature or what it signs
 * is not valid.
 */
export function identityOf(
  token: string,
  previous: string | undefined,
  request: SignedRequest,
): VerifiedIdentity | null {
  const { headers } = request;
  const given = header(headers[IDENTITY_HEADERS.signature]);
  const fields: SignedFields = {
    ts: header(headers[IDENTITY_HEADERS.timestamp]),
    method: request.method,
    url: request.url,
    userId: header(headers[IDENTITY_HEADERS.userId]),
    role: header(headers[IDENTITY_HEADERS.role]),
    scopes: header(headers[IDENTITY_HEADERS.scopes]),
    clientIp: header(headers[IDENTITY_HEADERS.clientIp]),
    expires: header(headers[IDENTITY_HEADERS.expires]),
  };
  const fresh = Math.abs(Date.now() / 1000 - Number(fields.ts)) <= MAX_SKEW_SECONDS;
  const valid =
    fresh && (signedWith(token, fields, given) || (!!previous && signedWith(previous, fields, given)));
  if (!valid) return null;
  const { userId, role, scopes, expires, clientIp } = fields;
  if (!userId) return { actor: null, clientIp };
  const expiresAt = expires ? new Date(expires) : null;
  if (!/^[1-9]\d{0,9}$/.test(userId) || !isRole(role) || Number.isNaN(expiresAt?.getTime())) return null;
  const actor: Actor = {
    userId: Number(userId),
    role,
    scopes: effectiveScopes(role, scopes.split(' ')),
    expiresAt,
  };
  return { actor, clientIp };
}

/**
 * Verifies the gateway's signature ({@link identityOf}): the caller (or null for an anonymous call)
 * lands in `res.locals.actor`, the client address in `res.locals.clientIp`.
 */
export function verifyIdentity(token: string, previous?: string): RequestHandler {
  return (req, res, next) => {
    const identity = identityOf(token, previous, {
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
    });
    if (!identity) return next(new UnauthorizedError('requests must come through the API gateway'));
    res.locals.clientIp = identity.clientIp || req.socket.remoteAddress || 'unknown';
    res.locals.actor = identity.actor;
    next();
  };
}

/** Who is asking, for shares per caller: the account, else the client's address. */
export function callerOf(locals: Record<string, unknown>): string {
  const actor = locals.actor as Actor | null | undefined;
  return actor ? `acct:${actor.userId}` : `ip:${locals.clientIp as string}`;
}

/** The verified caller; a 401 when the route needs one and the gateway sent none. */
export function requireActor(locals: Record<string, unknown>): Actor {
  const actor = locals.actor as Actor | null | undefined;
  if (!actor) throw new UnauthorizedError();
  return actor;
}
