import type { IncomingHttpHeaders } from 'node:http';
import { type Actor, type ResolvedKey, ServiceUnavailableError } from '@community/contracts';
import { oncePer } from '../once-per';
import { readBearer, type BearerCredential } from './bearer';
import type { KeyResolver } from './key-resolver';

/** Who sent a request, as far as its credentials say before any budget or scope is asked. */
export interface Identity {
  bearer: BearerCredential;
  /** The account behind a valid key or access token. */
  resolved: ResolvedKey | null;
  actor: Actor | null;
  /** The account pages' session cookie, when one was sent (users-service checks it). */
  session: string | null;
  /** Set when the key could not be checked: the request is counted like one without a key, then refused. */
  unavailable?: ServiceUnavailableError;
}

const NO_BEARER: BearerCredential = { kind: 'none' };

/**
 * Reads the request's credentials: the bearer key or access token (looked up through the key cache:
 * at once when it holds the key, else from users-service), and the pages' session cookie. Pages and
 * the OAuth protocol endpoints carry no bearer: their session or the client's own credentials.
 */
export function identify(
  keys: KeyResolver,
  headers: IncomingHttpHeaders,
  readsBearer: boolean,
): Identity | Promise<Identity> {
  const bearer = readsBearer ? readBearer(headers.authorization) : NO_BEARER;
  const session = sessionOf(headers.cookie);
  if (bearer.kind !== 'key') return { bearer, resolved: null, actor: null, session };
  const known = keys.known(bearer.key);
  if (known === undefined) return resolving(keys, bearer, session);
  return { bearer, resolved: known, actor: known && actorOf(known), session };
}

async function resolving(
  keys: KeyResolver,
  bearer: BearerCredential & { kind: 'key' },
  session: string | null,
) {
  try {
    const resolved = await keys.resolve(bearer.key);
    return { bearer, resolved, actor: resolved && actorOf(resolved), session };
  } catch {
    // users-service is down or its breaker is open: we cannot tell a good key from a bad one.
    const unavailable = new ServiceUnavailableError(
      'API keys cannot be verified right now; try again shortly',
      5,
    );
    return { bearer, resolved: null, actor: null, session, unavailable };
  }
}

/** Each credential's actor, made once for each resolved value the key cache holds (not per request). */
const actorOf = oncePer((resolved: ResolvedKey): Actor => ({
  userId: resolved.user_id,
  role: resolved.role,
  scopes: new Set(resolved.scopes),
  expiresAt: resolved.expires_at ? new Date(resolved.expires_at) : null,
}));

function sessionOf(cookie: string | undefined): string | null {
  return cookie ? (/(?:^|;\s*)cp_session=([^;]*)/.exec(cookie)?.[1] ?? null) : null;
}
