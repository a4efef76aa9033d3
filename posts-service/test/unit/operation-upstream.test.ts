import { Router } from 'express';
import { OPERATIONS, operationPath } from '@community/openapi';
import { servedRoutes } from '@community/test-harness';
import { postsServiceRoutes } from '../../src/routes';

// The gateway sends a route to the upstream its table entry names (gateway/src/proxy/route-table.ts):
// posts-service must serve exactly the operations that name it.
it('serves exactly the operations whose upstream is posts', () => {
  const router = Router();
  postsServiceRoutes(router, {} as Parameters<typeof postsServiceRoutes>[1]);
  const named = OPERATIONS.filter((op) => op.upstream === 'posts');
  expect(servedRoutes(router, '/api/v1').sort()).toEqual(
    named.map((op) => `${op.method} ${operationPath(op)}`).sort(),
  );
});
