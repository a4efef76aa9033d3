import { Router } from 'express';
import { buildOpenApiDocument, GATEWAY_OPERATIONS, OPERATIONS, operationPath } from '@community/openapi';
import { postsServiceRoutes } from '../../../posts-service/src/routes';
import { protocolMounts, usersServiceRoutes } from '../../../users-service/src/routes';
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
  postsServiceRoutes(router, unused);
  usersServiceRoutes(router, unused);
  webhooksRoutes(router, unused);
  const mounted = protocolMounts(unused).flatMap(({ path, routes }) => {
    const mount = Router();
    routes(mount);
    return routesOf(mount, path);
  });
  return [...routesOf(router, API), ...mounted];
}

/** What the gateway answers itself. */
const gatewayRoutes = () => GATEWAY_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${operationPath(op)}`);

/** `METHOD /path/{}` for every operation of the OpenAPI document the gateway serves. */
function documented(): string[] {
  const { paths, servers } = buildOpenApiDocument();
  const api = (servers as { url: string }[])[0]!.url;
  return Object.entries(paths).flatMap(([path, item]) => {
    const server = item.servers ? (item.servers[0] as { url: string }).url.replace(/\/$/, '') : api;
    return Object.keys(item)
      .filter((key) => key !== 'servers')
      .map((method) => `${method.toUpperCase()} ${server}${path.replace(/\{\w+\}/g, '{}')}`);
  });
}

describe('the operation tables', () => {
  it('are what the services register, and the document describes every route registered', () => {
    expect([...serviceRoutes(), ...gatewayRoutes()].sort()).toEqual([...documented()].sort());
  });

  it('have unique operation ids and method+path pairs', () => {
    expect(new Set(OPERATIONS.map((op) => op.id)).size).toBe(OPERATIONS.length);
    expect(new Set(documented()).size).toBe(OPERATIONS.length);
  });

  it.each(OPERATIONS.map((op) => [op.id, op] as const))(
    '%s: the gateway demands the scope its table names',
    (_id, op) => {
      const path = operationPath(op).replace(/\{\w+\}/g, '1');
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
