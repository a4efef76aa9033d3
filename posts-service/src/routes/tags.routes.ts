import type { OperationHandlers } from '@community/http-kit';
import type { POST_OPERATIONS } from '@community/openapi';
import type { TxDeps } from '@community/events';
import { listTags } from '../domain/tags';

/** The handler of the tag operation in `POST_OPERATIONS` (libs/openapi). */
export function tagsHandlers(deps: TxDeps) {
  return {
    listTags: ({ query }) => listTags(deps.sql, query),
  } satisfies Partial<OperationHandlers<typeof POST_OPERATIONS>>;
}
