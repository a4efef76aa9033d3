import { createKeyBody } from '@community/contracts';
import {
  parseId,
  parseWith,
  sendCreated,
  sendData,
  sendPage,
  type OperationHandlers,
} from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { createKey, listKeys, revokeKey } from '../domain/keys/manage-keys';
import { keyCredential } from './session';

/** The handlers of the key operations in `USER_OPERATIONS` (libs/openapi), by operation id. */
export function keysHandlers(deps: TxDeps): OperationHandlers {
  return {
    listApiKeys: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      const keys = await listKeys(deps.sql, userId);
      sendPage(req, res, { items: keys, totalItems: keys.length, page: 1, limit: Math.max(keys.length, 1) });
    },
    createApiKey: async (req, res) => {
      const creator = await keyCredential(deps, req, res);
      const key = await createKey(deps, creator, parseWith(createKeyBody, req.body));
      res.setHeader('Cache-Control', 'no-store');
      sendCreated(res, key, `/api/v1/keys/${key.id}`);
    },
    revokeApiKey: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      sendData(res, await revokeKey(deps, userId, parseId(req.params.id, 'key')));
    },
  };
}
