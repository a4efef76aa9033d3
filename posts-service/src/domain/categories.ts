import {
  ConflictError,
  deleted,
  NotFoundError,
  ValidationError,
  type Actor,
  type Category,
  type CreateCategoryBody,
  type Deleted,
  type UpdateCategoryBody,
} from '@community/contracts';
import type { Page } from '@community/http-kit';
import * as repo from '../db/categories.repository';
import { commitWithEvents, type TxDeps } from '@community/events';
import { assertAdmin } from '@community/access';
import { toCategory } from './representations';
import { slugify } from './slug';

export async function listCategories(deps: TxDeps, page: number, limit: number): Promise<Page<Category>> {
  const { rows, total } = await repo.listCategories(deps.sql, limit, (page - 1) * limit);
  return { items: rows.map(toCategory), totalItems: total, page, limit };
}

export async function readCategory(deps: TxDeps, id: number): Promise<Category> {
  const row = await repo.findCategory(deps.sql, id);
  if (!row) throw new NotFoundError('category');
  return toCategory(row);
}

export async function createCategory(
  deps: TxDeps,
  actor: Actor,
  body: CreateCategoryBody,
): Promise<Category> {
  assertAdmin(actor, 'create categories');
  const slug = body.slug ?? slugify(body.name, 'category', 60);
  const row = await slugUnique(slug, () =>
    repo.insertCategory(deps.sql, { name: body.name, slug, description: body.description ?? '' }),
  );
  return toCategory(row);
}

export async function updateCategory(
  deps: TxDeps,
  actor: Actor,
  id: number,
  body: UpdateCategoryBody,
): Promise<Category> {
  assertAdmin(actor, 'change categories');
  const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length === 0) {
    throw ValidationError.single('body', 'required', 'body must contain at least one field to change');
  }
  const row = await slugUnique(String(changes.slug ?? ''), () => repo.updateCategory(deps.sql, id, changes));
  if (!row) throw new NotFoundError('category');
  return toCategory(row);
}

/** A category that still holds live posts cannot go: move or delete them first. */
export async function deleteCategory(deps: TxDeps, actor: Actor, id: number): Promise<Deleted> {
  assertAdmin(actor, 'delete categories');
  return commitWithEvents(deps, async (tx) => {
    const row = await repo.findCategory(tx, id, { forUpdate: true });
    if (!row) throw new NotFoundError('category');
    if (row.postCount > 0) {
      throw new ConflictError(`category ${id} still has ${row.postCount} posts`, {
        post_count: row.postCount,
      });
    }
    await repo.deleteCategory(tx, id);
    return deleted(id);
  });
}

async function slugUnique<T>(slug: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof repo.SlugTakenError) {
      throw new ConflictError(`a category with slug "${slug}" already exists`, { field: 'slug' });
    }
    throw err;
  }
}
