import type { Scope } from '@community/contracts';
import { OPERATIONS, operationPath, type OperationSpec } from '@community/openapi';
import { matchesPrefix } from './proxy/route-table';
import { PathIndex } from './routes/path-index';
import { canonicalPath } from './routes/route-set';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Scopes that guard a whole family of paths (DESIGN.md §5), not just the methods declared on it. */
const FAMILY_SCOPES = new Set<Scope>(['keys', 'webhooks']);

const DECLARED = new PathIndex(OPERATIONS.map((op) => [canonicalPath(operationPath(op)), op] as const));

/** The operations declared at exactly this path, in the tables' order. */
export const declaredAt = (path: string): readonly OperationSpec[] => DECLARED.at(path);

/** The table's name for a request method: HEAD and OPTIONS ask what GET would answer. */
const tableMethod = (method: string) => (READ_METHODS.has(method) ? 'get' : method.toLowerCase());

/**
 * The scope a request needs, decided from method and path alone by the operation tables (DESIGN.md
 * §5). A method a path does not declare takes the scope of a declared one of its kind (reading or
 * writing), else the family scope (`keys`, `webhooks`) all of the path's operations share, else
 * `read` or `write`. Checks that need data (ownership, moderator rights) stay in the services.
 */
export function requiredScope(method: string, path: string): Scope {
  const ops = declaredAt(path);
  const reading = READ_METHODS.has(method);
  const plain: Scope = reading ? 'read' : 'write';
  const op =
    ops.find((candidate) => candidate.method === tableMethod(method)) ??
    ops.find((candidate) => (candidate.method === 'get') === reading);
  if (op) return op.scope ?? plain;
  const scopes = new Set(ops.map((candidate) => candidate.scope));
  const [only] = scopes;
  return scopes.size === 1 && only && FAMILY_SCOPES.has(only) ? only : plain;
}

/**
 * Default avatars (users-service's /avatars/{id}.svg): one public picture, cached a day, loaded by
 * every page that lists users. Like /docs they pass before keys and limits, and carry no credential.
 */
export const AVATARS_PREFIX = '/avatars';

/**
 * Requests that need no API key: the operations declared key-less (registration, the document, the
 * OAuth endpoints — whose other methods users-service answers itself, in RFC 6749 form for the
 * protocol), the default avatars, the account pages, and the operations that also take the account
 * session, when it is sent (DESIGN.md §5).
 */
export function isPublic(method: string, path: string, hasSessionCookie: boolean): boolean {
  if (matchesPrefix(path, AVATARS_PREFIX)) return true;
  if (matchesPrefix(path, '/account')) return true;
  const keyless = declaredAt(path).filter((op) => op.scope === null);
  if (keyless.some((op) => op.method === tableMethod(method) || op.tag === 'OAuth')) return true;
  if (!hasSessionCookie) return false;
  // The operation the method names decides; a method no operation declares here passes on to
  // users-service when the path takes the session at all, which answers it itself.
  const declared = declaredAt(path);
  const named = declared.find((op) => op.method === tableMethod(method));
  return named ? named.session === true : declared.some((op) => op.session === true);
}

/**
 * The OAuth protocol endpoints (token, revocation), whose Authorization header holds an OAuth
 * client's own credentials (HTTP Basic, RFC 6749 §2.3.1): the gateway neither reads it as a bearer
 * nor strips it.
 */
export function carriesClientCredentials(path: string): boolean {
  return declaredAt(path).some((op) => op.protocol === 'oauth');
}

/**
 * A long-lived answer (Server-Sent Events): relayed outside the breaker, with no timeout. Whatever the
 * method: a `HEAD` is answered by the gateway at once (DESIGN.md §21), never held by the service.
 */
export function isStream(path: string): boolean {
  return declaredAt(path).some((op) => op.response.kind === 'stream');
}
