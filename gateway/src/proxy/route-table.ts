export type UpstreamName = 'posts' | 'users' | 'webhooks';

export interface RouteRule {
  prefix: string;
  upstream: UpstreamName;
}

/** Which service answers which path (segment-aware prefixes). */
export const ROUTES: RouteRule[] = [
  { prefix: '/api/v1/posts', upstream: 'posts' },
  { prefix: '/api/v1/comments', upstream: 'posts' },
  { prefix: '/api/v1/categories', upstream: 'posts' },
  { prefix: '/api/v1/tags', upstream: 'posts' },
  { prefix: '/api/v1/flags', upstream: 'posts' },
  { prefix: '/api/v1/moderation', upstream: 'posts' },
  { prefix: '/api/v1/users', upstream: 'users' },
  { prefix: '/api/v1/auth', upstream: 'users' },
  { prefix: '/api/v1/keys', upstream: 'users' },
  { prefix: '/api/v1/oauth', upstream: 'users' },
  { prefix: '/api/v1/notifications', upstream: 'users' },
  { prefix: '/api/v1/webhooks', upstream: 'webhooks' },
  { prefix: '/api/v1/events', upstream: 'webhooks' },
  { prefix: '/account', upstream: 'users' },
  { prefix: '/avatars', upstream: 'users' },
  { prefix: '/.well-known/oauth-authorization-server', upstream: 'users' },
];

export function matchesPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function routeFor(path: string): RouteRule | undefined {
  return ROUTES.find((rule) => matchesPrefix(path, rule.prefix));
}
