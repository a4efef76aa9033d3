import type { Scope } from '@community/contracts';
import { matchesPrefix } from './proxy/route-table';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The scope a request needs, decided from method and path alone (DESIGN.md §5). Checks that need
 * data (ownership, moderator rights on others' content) stay in the services.
 */
export function requiredScope(method: string, path: string): Scope {
  if (matchesPrefix(path, '/api/v1/keys') || matchesPrefix(path, '/api/v1/oauth/apps')) return 'keys';
  if (matchesPrefix(path, '/api/v1/webhooks')) return 'webhooks';
  if (/^\/api\/v1\/users\/[^/]+\/(plan|role)$/.test(path) && !READ_METHODS.has(method)) return 'admin';
  if (matchesPrefix(path, '/api/v1/categories') && !READ_METHODS.has(method)) return 'admin';
  return READ_METHODS.has(method) ? 'read' : 'write';
}

/**
 * Requests that need no API key: registration, the OAuth protocol endpoints (clients authenticate to
 * users-service themselves), and the key and OAuth app APIs with an account session (DESIGN.md §5).
 */
/**
 * Default avatars (users-service's /avatars/{id}.svg): one public picture, cached a day, loaded by
 * every page that lists users. Like /docs they pass before keys and limits, and carry no credential.
 */
export const AVATARS_PREFIX = '/avatars';

export function isPublic(method: string, path: string, hasSessionCookie: boolean): boolean {
  if (matchesPrefix(path, AVATARS_PREFIX)) return true;
  if (method === 'POST' && path === '/api/v1/auth/register') return true;
  if (matchesPrefix(path, '/account')) return true;
  if (method === 'GET' && path === '/api/v1/openapi.json') return true;
  if (path === '/api/v1/oauth/authorize' || path === '/.well-known/oauth-authorization-server') return true;
  if (carriesClientCredentials(path)) return true;
  return (
    (matchesPrefix(path, '/api/v1/keys') || matchesPrefix(path, '/api/v1/oauth/apps')) && hasSessionCookie
  );
}

/**
 * The token and revocation endpoints, whose Authorization header holds an OAuth client's own
 * credentials (HTTP Basic, RFC 6749 §2.3.1): the gateway neither reads it as a bearer nor strips it.
 */
export function carriesClientCredentials(path: string): boolean {
  return path === '/api/v1/oauth/token' || path === '/api/v1/oauth/revoke';
}
