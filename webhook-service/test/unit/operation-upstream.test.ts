import { Router } from 'express';
import { OPERATIONS, operationPath } from '@community/openapi';
import { servedRoutes } from '@community/test-harness';
import { webhooksRoutes } from '../../src/routes/webhooks.routes';

// The gateway sends a route to the upstream its table entry names (gateway/src/proxy/route-table.ts):
// webhook-service must serve exactly the operations that name it.
it('serves exactly the operations whose upstream is webhooks', () => {
  const router = Router();
  webhooksRoutes(router, {} as Parameters<typeof webhooksRoutes>[1]);
  const named = OPERATIONS.filter((op) => op.upstream === 'webhooks');
  expect(servedRoutes(router, '/api/v1').sort()).toEqual(
    named.map((op) => `${op.method} ${operationPath(op)}`).sort(),
  );
});
