import type { OperationHandlers } from '@community/http-kit';
import type { USER_OPERATIONS } from '@community/openapi';
import type { TxDeps } from '@community/events';
import { createKey, listKeys, revokeKey, type KeyCreator } from '../domain/keys/manage-keys';

/**
 * The handlers of the key operations in `USER_OPERATIONS` (libs/openapi), by operation id. Their
 * caller is a key with the `keys` scope or the account session (routes/session.ts keyCredential).
 */
export function keysHandlers(deps: TxDeps) {
  return {
    listApiKeys: async ({ actor }) => {
      const keys = await listKeys(deps.sql, actor.userId);
      return { items: keys, totalItems: keys.length, page: 1, limit: Math.max(keys.length, 1) };
    },
    createApiKey: ({ actor, body }) => createKey(deps, actor, body),
    revokeApiKey: ({ actor, params }) => revokeKey(deps, actor.userId, params.id),
  } satisfies Partial<OperationHandlers<typeof USER_OPERATIONS, KeyCreator>>;
}
