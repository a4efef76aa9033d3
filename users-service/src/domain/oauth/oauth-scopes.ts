import { isIPv4 } from 'node:net';
import { ROLE_SCOPES } from '@community/access';
import { isScope, redirectUriProblem, type Role, type Scope } from '@community/contracts';

/** What an app gets when it asks for no scope: least privilege (RFC 6749 §3.3 lets us choose). */
export const DEFAULT_OAUTH_SCOPES: Scope[] = ['read'];

/** The scopes of a space-separated `scope` parameter, or null when one is not ours. */
export function parseScopeParam(raw: string | undefined): Scope[] | null {
  if (raw === undefined || raw.trim() === '') return DEFAULT_OAUTH_SCOPES;
  const names = raw.trim().split(/ +/);
  if (!names.every(isScope)) return null;
  return [...new Set(names)];
}

/** A requested scope the user's role cannot hold, if any: a token never exceeds its user's rights. */
export function scopeBeyondRole(role: Role, scopes: readonly string[]): string | undefined {
  return scopes.find((scope) => !(ROLE_SCOPES[role] as readonly string[]).includes(scope));
}

const parsed = (uri: string): URL | null => (URL.canParse(uri) ? new URL(uri) : null);

// `http://127.0.0.1:8000/cb` → `http://127.0.0.1/cb`; null for anything but a loopback IP http URI
// written the way the URL parser writes it back (no `..`, no odd forms of an address, a real port).
function withoutLoopbackPort(uri: string): string | null {
  const url = parsed(uri);
  if (!url || url.href !== uri || url.protocol !== 'http:') return null;
  if (url.hostname !== '[::1]' && !(isIPv4(url.hostname) && url.hostname.startsWith('127.'))) return null;
  url.port = '';
  return url.href;
}

/**
 * Whether `given` is one of the app's redirect URIs: character for character, except that a loopback
 * IP URI may use any port, since native apps pick a free one per run (RFC 8252 §7.3). A URI that
 * registration would refuse today (port 0, say) is never one, whatever was stored before.
 */
export function isRegisteredRedirect(registered: readonly string[], given: string): boolean {
  if (redirectUriProblem(given) !== null) return false;
  if (registered.includes(given)) return true;
  const loose = withoutLoopbackPort(given);
  return loose !== null && registered.some((uri) => withoutLoopbackPort(uri) === loose);
}
