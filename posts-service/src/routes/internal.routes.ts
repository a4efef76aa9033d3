import type { Router } from 'express';
import { requireActor, resource, JsonStream } from '@community/http-kit';
import type { PostsExportPart } from '@community/contracts';
import type { Sql } from '@community/db';
import { exportPart } from '../domain/export';

const PARTS: readonly PostsExportPart[] = ['posts', 'comments', 'likes', 'flags'];

/**
 * For users-service only (DESIGN.md §20's export): the caller's own posts, comments, likes and flags,
 * each a JSON array streamed from a cursor. The identity is signed as the gateway signs it.
 */
export function internalRoutes(router: Router, deps: { sql: Sql }): void {
  for (const part of PARTS)
    resource(router, `/export/${part}`, {
      get: async (_req, res) => {
        const { userId } = requireActor(res.locals);
        const out = new JsonStream(res);
        out.begin();
        await exportPart(deps.sql, part, userId, out);
        out.end();
      },
    });
}
