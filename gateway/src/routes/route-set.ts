import { ACCOUNT_PAGE_PATHS } from '@community/contracts';
import { OPERATIONS, operationPath } from '@community/openapi';
import { routeFor, type UpstreamName } from '../proxy/route-table';
import { PathIndex } from './path-index';

/** One path template the gateway serves, and who answers it. */
export interface Route {
  /** As the tables write it (`/api/v1/posts/{id}`): the metrics' label and the log's `route`. */
  template: string;
  /** The service that answers it; null when the gateway answers it itself (the version, the document). */
  upstream: UpstreamName | null;
}

/**
 * Every route the gateway serves (DESIGN.md §21): the operations of the services' tables, and the
 * account pages. (The probes and /docs are the gateway's own, routed before this.) Templates without
 * parameters come first, so `/users/me` is itself, not `/users/{id}`.
 */
const TEMPLATES = [
  ...new Set([...OPERATIONS.map((op) => canonicalPath(operationPath(op))), ...ACCOUNT_PAGE_PATHS]),
].sort((a, b) => parameters(a) - parameters(b));
const ROUTES = new PathIndex<Route>(
  TEMPLATES.map((template) => [template, { template, upstream: routeFor(template)?.upstream ?? null }]),
);

function parameters(template: string): number {
  return template.split('{').length - 1;
}

/** The default avatars (users-service): served before keys and the API's limits, on a budget of their own. */
export const AVATAR_ROUTE = '/avatars/{id}.svg';

/** The route a canonical path matches, or null: a path that matches none is 404 at the gateway. */
export function matchRoute(path: string): Route | null {
  return ROUTES.at(path)[0] ?? null;
}

/**
 * The one spelling of a path every rule sees (DESIGN.md §21): repeated slashes collapse and one
 * trailing slash is dropped; case counts, so `/STREAM` is no route at all.
 */
export function canonicalPath(path: string): string {
  const collapsed = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}
