import type { Router } from 'express';
import { createCategoryBody, listCategoriesQuery, updateCategoryBody } from '@community/contracts';
import {
  parseId,
  parseWith,
  requireActor,
  resource,
  sendCreated,
  sendData,
  sendPage,
} from '@community/http-kit';
import {
  createCategory,
  deleteCategory,
  listCategories,
  readCategory,
  updateCategory,
} from '../domain/categories';
import type { Deps } from '../domain/deps';

export function categoriesRoutes(router: Router, deps: Deps): void {
  resource(router, '/categories', {
    get: async (req, res) => {
      const { page, limit } = parseWith(listCategoriesQuery, req.query);
      sendPage(req, res, await listCategories(deps, page, limit));
    },
    post: async (req, res) => {
      const category = await createCategory(
        deps,
        requireActor(res.locals),
        parseWith(createCategoryBody, req.body),
      );
      sendCreated(res, category, `/api/v1/categories/${category.id}`);
    },
  });

  resource(router, '/categories/:id', {
    get: async (req, res) => sendData(res, await readCategory(deps, parseId(req.params.id, 'category'))),
    put: async (req, res) => {
      const id = parseId(req.params.id, 'category');
      sendData(
        res,
        await updateCategory(deps, requireActor(res.locals), id, parseWith(updateCategoryBody, req.body)),
      );
    },
    delete: async (req, res) =>
      sendData(res, await deleteCategory(deps, requireActor(res.locals), parseId(req.params.id, 'category'))),
  });
}
