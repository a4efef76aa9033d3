import type { Sql, Tx } from '@community/db';
import type { CategoryRow } from './rows';

type Db = Sql | Tx;

const UNIQUE_VIOLATION = '23505';

export class SlugTakenError extends Error {}

export async function findCategory(
  db: Db,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<CategoryRow | null> {
  const [row] = opts.forUpdate
    ? await db<CategoryRow[]>`select * from categories where id = ${id} for update`
    : await db<CategoryRow[]>`select * from categories where id = ${id}`;
  return row ?? null;
}

export async function listCategories(db: Db, limit: number, offset: number) {
  const [rows, [count]] = await Promise.all([
    db<CategoryRow[]>`select * from categories order by name, id limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from categories`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

export async function insertCategory(
  db: Db,
  category: { name: string; slug: string; description: string },
): Promise<CategoryRow> {
  try {
    const [row] = await db<CategoryRow[]>`
      insert into categories (name, slug, description)
      values (${category.name}, ${category.slug}, ${category.description})
      returning *`;
    return row!;
  } catch (err) {
    throw asSlugTaken(err);
  }
}

export async function updateCategory(
  db: Db,
  id: number,
  changes: Partial<{ name: string; slug: string; description: string }>,
): Promise<CategoryRow | null> {
  const columns = Object.keys(changes) as (keyof typeof changes)[];
  if (columns.length === 0) return findCategory(db, id);
  try {
    const [row] = await db<CategoryRow[]>`
      update categories set ${db(changes, columns)}, updated_at = now() where id = ${id} returning *`;
    return row ?? null;
  } catch (err) {
    throw asSlugTaken(err);
  }
}

export async function deleteCategory(db: Db, id: number): Promise<void> {
  await db`delete from categories where id = ${id}`;
}

export async function addPostCount(tx: Tx, categoryId: number, delta: 1 | -1): Promise<void> {
  await tx`update categories set post_count = post_count + ${delta} where id = ${categoryId}`;
}

function asSlugTaken(err: unknown): unknown {
  return (err as { code?: string }).code === UNIQUE_VIOLATION ? new SlugTakenError() : err;
}
