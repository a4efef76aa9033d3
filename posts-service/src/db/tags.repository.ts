import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface TagRow {
  name: string;
  postCount: number;
}

export type TagSort = 'popular' | 'name';

/**
 * Moves the counts of a post's tags from `before` to `after` (a new post: none before; a deleted
 * one: none after). In name order, so two posts sharing tags never wait on each other in a circle.
 */
export async function moveTagCounts(tx: Tx, before: string[], after: string[]): Promise<void> {
  const added = [...new Set(after)].filter((tag) => !before.includes(tag)).sort();
  const removed = [...new Set(before)].filter((tag) => !after.includes(tag)).sort();
  if (added.length)
    await tx`
      insert into tags (name, post_count) select unnest(${added}::text[]), 1
      on conflict (name) do update set post_count = tags.post_count + 1`;
  if (removed.length)
    await tx`
      update tags set post_count = post_count - 1
      where name in (select unnest(${removed}::text[]) order by 1)`;
}

/** Tags carried by live posts, most used first or by name; `prefix` (a valid tag prefix) narrows them. */
export async function listTags(
  db: Db,
  { prefix, sort, limit, offset }: { prefix?: string; sort: TagSort; limit: number; offset: number },
): Promise<{ rows: TagRow[]; total: number }> {
  // A prefix is [a-z0-9-]: nothing in it is a LIKE wildcard.
  const where = db`post_count > 0 ${prefix !== undefined ? db`and name like ${prefix + '%'}` : db``}`;
  const [rows, [count]] = await Promise.all([
    db<TagRow[]>`
      select name, post_count from tags where ${where}
      order by ${sort === 'popular' ? db`post_count desc, name` : db`name`}
      limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from tags where ${where}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}
