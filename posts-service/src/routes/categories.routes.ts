import { createCategoryBody, listCategoriesQuery, updateCategoryBody } from '@community/contracts';
import {
  parseId,
  parseWith,
  requireActor,
  sendCreated,
  sendData,
  sendPage,
  type OperationHandlers,
} from '@community/http-kit';
import {
  createCategory,
  deleteCategory,
  listCategories,
  readCategory,
  updateCategory,
} from '../domain/categories';
import type { TxDeps } from '@community/events';

/** The handlers of the category operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function categoriesHandlers(deps: TxDeps): OperationHandlers {
  return {
    listCategories: async (req, res) => {
      const { page, limit } = parseWith(listCategoriesQuery, req.query);
      sendPage(req, res, await listCategories(deps, page, limit));
    },
    createCategory: async (req, res) => {
      const category = await createCategory(
        deps,
        requireActor(res.locals),
        parseWith(createCategoryBody, req.body),
      );
      sendCreated(res, category, `/api/v1/categories/${category.id}`);
    },
    getCategory: async (req, res) =>
      sendData(res, await readCategory(deps, parseId(req.params.id, 'category'))),
    updateCategory: async (req, res) => {
      const id = parseId(req.params.id, 'category');
      sendData(
        res,
        await updateCategory(deps, requireActor(res.locals), id, parseWith(updateCategoryBody, req.body)),
      );
    },
    deleteCategory: async (req, res) =>
      sendData(res, await deleteCategory(deps, requireActor(res.locals), parseId(req.params.id, 'category'))),
  };
}
