import { ACCOUNT_PAGE_PATHS } from '@community/contracts';
import { API_BASE, OPERATIONS, operationPath, type Upstream } from '@community/openapi';

export type UpstreamName = Upstream;

export interface RouteRule {
  prefix: string;
  upstream: UpstreamName;
}

/** The account pages are users-service's, as its operations are (users-service/src/pages). */
const ACCOUNT_PAGES_UPSTREAM: UpstreamName = 'users';

/** A path's first segment under its base: `/api/v1/posts/{id}` → `/api/v1/posts`, `/avatars/{id}.svg` → `/avatars`. */
function prefixOf(path: string, base = ''): string {
  return `${base}/${path.slice(base.length).split('/')[1] ?? ''}`;
}

function prefixRules(served: [prefix: string, upstream: UpstreamName][]): RouteRule[] {
  const rules = new Map<string, UpstreamName>();
  for (const [prefix, upstream] of served) {
    const claimed = rules.get(prefix);
    if (claimed && claimed !== upstream)
      throw new Error(`${prefix} is served by both ${claimed} and ${upstream}: give one a prefix of its own`);
    rules.set(prefix, upstream);
  }
  return [...rules].map(([prefix, upstream]) => ({ prefix, upstream }));
}

/**
 * Which service answers which path (segment-aware prefixes), derived from the operation tables (each
 * entry names its upstream; the gateway's own have none) and the account pages: a new top-level
 * path in a table needs no edit here.
 */
export const ROUTES: readonly RouteRule[] = prefixRules([
  ...OPERATIONS.flatMap((op): [string, UpstreamName][] =>
    op.upstream ? [[prefixOf(operationPath(op), op.server ? '' : API_BASE), op.upstream]] : [],
  ),
  ...ACCOUNT_PAGE_PATHS.map((path): [string, UpstreamName] => [prefixOf(path), ACCOUNT_PAGES_UPSTREAM]),
]);

export function matchesPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function routeFor(path: string): RouteRule | undefined {
  return ROUTES.find((rule) => matchesPrefix(path, rule.prefix));
}
