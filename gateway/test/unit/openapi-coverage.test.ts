import { Router } from 'express';
import { OPERATIONS } from '@community/openapi';
import { categoriesRoutes } from '../../../posts-service/src/routes/categories.routes';
import { commentsRoutes } from '../../../posts-service/src/routes/comments.routes';
import { postsRoutes } from '../../../posts-service/src/routes/posts.routes';
import { protocolMounts } from '../../../users-service/src/app';
import { keysRoutes } from '../../../users-service/src/routes/keys.routes';
import { oauthAppsRoutes } from '../../../users-service/src/routes/oauth-apps.routes';
import { usersRoutes } from '../../../users-service/src/routes/users.routes';
import { webhooksRoutes } from '../../../webhook-service/src/routes/webhooks.routes';
import { isPublic, requiredScope } from '../../src/scopes';

// Registering routes only stores the handlers; the dependencies are never touched here.
const unused = {} as never;

const API = '/api/v1';

/** `METHOD /path/{}` for every route a router holds, its paths under `prefix`. */
function routesOf(router: Router, prefix: string): string[] {
  return (router.stack as { route?: { path: string; methods: Record<string, boolean> } }[]).flatMap(
    ({ route }) =>
      Object.keys(route?.methods ?? {})
        .filter((method) => method !== '_all')
        .map((method) => {
          const path = route!.path === '/' && prefix !== API ? '' : route!.path;
          return `${method.toUpperCase()} ${prefix}${path.replace(/:\w+/g, '{}')}`;
        }),
  );
}

/** Every public route the services register: under /api/v1, and the protocol endpoints' own mounts. */
function serviceRoutes(): string[] {
  const router = Router();
  postsRoutes(router, unused, unused);
  commentsRoutes(router, unused);
  categoriesRoutes(router, unused);
  usersRoutes(router, unused);
  keysRoutes(router, unused);
  oauthAppsRoutes(router, unused);
  webhooksRoutes(router, unused, () => {});
  const mounted = protocolMounts(unused).flatMap(({ path, routes }) => {
    const mount = Router();
    routes(mount);
    return routesOf(mount, path);
  });
  return [...routesOf(router, API), ...mounted];
}

/** What the gateway answers itself. */
const GATEWAY_ROUTES = [`GET ${API}/`, `GET ${API}/openapi.json`];

/** The full path of an operation: under its own server (e.g. the origin's root) or /api/v1. */
const fullPath = (op: (typeof OPERATIONS)[number]) =>
  `${op.server ? op.server.url.replace(/\/$/, '') : API}${op.path}`;

const documented = () =>
  OPERATIONS.map((op) => `${op.method.toUpperCase()} ${fullPath(op).replace(/\{\w+\}/g, '{}')}`);

describe('the operation registry', () => {
  it('documents exactly the public routes the services and the gateway serve', () => {
    expect([...documented()].sort()).toEqual([...serviceRoutes(), ...GATEWAY_ROUTES].sort());
  });

  it('has unique operation ids and method+path pairs', () => {
    expect(new Set(OPERATIONS.map((op) => op.id)).size).toBe(OPERATIONS.length);
    expect(new Set(documented()).size).toBe(OPERATIONS.length);
  });

  it.each(OPERATIONS.map((op) => [op.id, op] as const))(
    '%s names the scope the gateway demands',
    (_id, op) => {
      const path = fullPath(op).replace(/\{\w+\}/g, '1');
      const method = op.method.toUpperCase();
      if (op.scope === null) {
        expect(isPublic(method, path, false)).toBe(true);
      } else {
        expect(requiredScope(method, path)).toBe(op.scope);
        expect(isPublic(method, path, false)).toBe(false);
        expect(isPublic(method, path, true)).toBe(op.session === true);
      }
    },
  );
});
