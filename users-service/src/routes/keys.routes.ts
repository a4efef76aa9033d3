import type { Router } from 'express';
import { createKeyBody } from '@community/contracts';
import { parseId, parseWith, resource, sendCreated, sendData, sendPage } from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { createKey, listKeys, revokeKey } from '../domain/keys/manage-keys';
import { keyCredential } from './credentials';

export function keysRoutes(router: Router, deps: TxDeps): void {
  resource(router, '/keys', {
    get: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      const keys = await listKeys(deps.sql, userId);
      sendPage(req, res, { items: keys, totalItems: keys.length, page: 1, limit: Math.max(keys.length, 1) });
    },
    post: async (req, res) => {
      const creator = await keyCredential(deps.sql, req, res);
      const key = await createKey(deps, creator, parseWith(createKeyBody, req.body));
      res.setHeader('Cache-Control', 'no-store');
      sendCreated(res, key, `/api/v1/keys/${key.id}`);
    },
  });

  resource(router, '/keys/:id', {
    delete: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      sendData(res, await revokeKey(deps, userId, parseId(req.params.id, 'key')));
    },
  });
}
