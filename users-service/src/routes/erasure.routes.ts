import { ANSWERED, publicBase, type OperationHandlers } from '@community/http-kit';
import type { USER_OPERATIONS } from '@community/openapi';
import type { TxDeps } from '@community/events';
import { streamExport, type ExportDeps } from '../domain/export/account-export';
import type { KeyCreator } from '../domain/keys/manage-keys';
import { eraseMe, eraseUser } from '../domain/users/erase-account';

/** The handlers of leaving and taking one's data (DESIGN.md §20) in `USER_OPERATIONS` (libs/openapi). */
export function erasureHandlers(deps: TxDeps & ExportDeps) {
  return {
    eraseMe: ({ actor, body, query, res }) => eraseMe(deps, actor, body, query, String(res.locals.clientIp)),
    eraseUser: ({ actor, params, query }) => eraseUser(deps, actor, params.id, query),
    exportMe: async ({ actor, req, res }): Promise<typeof ANSWERED> => {
      await streamExport(deps, actor, res, publicBase(req));
      return ANSWERED;
    },
  } satisfies Partial<OperationHandlers<typeof USER_OPERATIONS, KeyCreator>>;
}
