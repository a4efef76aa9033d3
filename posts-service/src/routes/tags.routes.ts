import { listTagsQuery } from '@community/contracts';
import { parseWith, sendPage, type OperationHandlers } from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { listTags } from '../domain/tags';

/** The handler of the tag operation in `POST_OPERATIONS` (libs/openapi). */
export function tagsHandlers(deps: TxDeps): OperationHandlers {
  return {
    listTags: async (req, res) => {
      const query = parseWith(listTagsQuery, req.query);
      sendPage(req, res, await listTags(deps.sql, query), query);
    },
  };
}
