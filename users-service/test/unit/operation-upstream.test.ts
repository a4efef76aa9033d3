import { Router } from 'express';
import { OPERATIONS, operationPath } from '@community/openapi';
import { servedRoutes } from '@community/test-harness';
import type { AppDeps } from '../../src/app-deps';
import { protocolMounts, usersServiceRoutes } from '../../src/routes';

// The gateway sends a route to the upstream its table entry names (gateway/src/proxy/route-table.ts):
// users-service must serve exactly the operations that name it, under /api/v1 or mounted apart.
it('serves exactly the operations whose upstream is users', () => {
  const deps = {} as AppDeps;
  const api = Router();
  usersServiceRoutes(api, deps);
  const apart = protocolMounts(deps).flatMap(({ path, routes }) => {
    const router = Router();
    routes(router);
    return servedRoutes(router, path);
  });
  const named = OPERATIONS.filter((op) => op.upstream === 'users');
  expect([...servedRoutes(api, '/api/v1'), ...apart].sort()).toEqual(
    named.map((op) => `${op.method} ${operationPath(op)}`).sort(),
  );
});
