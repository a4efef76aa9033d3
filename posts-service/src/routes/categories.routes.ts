import type { OperationHandlers } from '@community/http-kit';
import type { POST_OPERATIONS } from '@community/openapi';
import type { TxDeps } from '@community/events';
import {
  createCategory,
  deleteCategory,
  listCategories,
  readCategory,
  updateCategory,
} from '../domain/categories';

/** The handlers of the category operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function categoriesHandlers(deps: TxDeps) {
  return {
    listCategories: ({ query }) => listCategories(deps, query.page, query.limit),
    createCategory: ({ actor, body }) => createCategory(deps, actor, body),
    getCategory: ({ params }) => readCategory(deps, params.id),
    updateCategory: ({ actor, params, body }) => updateCategory(deps, actor, params.id, body),
    deleteCategory: ({ actor, params }) => deleteCategory(deps, actor, params.id),
  } satisfies Partial<OperationHandlers<typeof POST_OPERATIONS>>;
}
