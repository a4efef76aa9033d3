import type { Router } from 'express';
import type { Sql } from '@community/db';
import { requireActor, resource } from '@community/http-kit';
import { exportEndpoints } from '../domain/endpoints';

/**
 * For users-service only (DESIGN.md §20's export): the caller's webhook endpoints, never a secret,
 * as one JSON array. The identity is signed as the gateway signs it.
 */
export function internalRoutes(router: Router, deps: { sql: Sql }): void {
  resource(router, '/export/webhooks', {
    get: async (_req, res) => {
      const { userId } = requireActor(res.locals);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await exportEndpoints(deps.sql, userId));
    },
  });
}
