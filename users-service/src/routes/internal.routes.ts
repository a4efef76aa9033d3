import type { Router } from 'express';
import { keyUsageBody, resolveKeyBody } from '@community/contracts';
import type { Sql } from '@community/db';
import { parseWith, resource, sendData } from '@community/http-kit';
import { resolveKey } from '../domain/keys/resolve-key';
import type { UsageTracker } from '../domain/keys/usage-tracker';

/** For the gateway only: served under /internal, which the gateway never routes from outside. */
export function internalRoutes(router: Router, deps: { sql: Sql; usage: UsageTracker }): void {
  resource(router, '/keys/resolve', {
    post: async (req, res) => {
      const { key_hash } = parseWith(resolveKeyBody, req.body);
      res.setHeader('Cache-Control', 'no-store');
      sendData(res, await resolveKey(deps.sql, deps.usage, key_hash));
    },
  });

  // The gateway answers most requests from its cache and reports key use here in batches.
  resource(router, '/keys/usage', {
    post: async (req, res) => {
      const { used } = parseWith(keyUsageBody, req.body);
      for (const { key_id, at } of used) deps.usage.touch(key_id, new Date(at));
      sendData(res, { recorded: used.length });
    },
  });
}
