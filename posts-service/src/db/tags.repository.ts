import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface TagRow {
  name: string;
  postCount: number;
}

export type TagSort = 'popular' | 'name';

/**
 * Moves the counts of a post's tags from `before` to `after` (a new post: none before; a deleted
 * one: none after). Every tag the edit touches is first made and locked in one byte order, so two
 * edits sharing tags wait for each other, never in a circle: counting the adds and then the drops
 * deadlocked two edits swapping tags, each holding the tag the other dropped.
 */
export async function moveTagCounts(tx: Tx, before: string[], after: string[]): Promise<void> {
  const added = [...new Set(after)].filter((tag) => !before.includes(tag));
  const removed = [...new Set(before)].filter((tag) => !after.includes(tag));
  if (added.length === 0 && removed.length === 0) return;
  const names = [...added, ...removed];
  const deltas = [...added.map(() => 1), ...removed.map(() => -1)];
  // DO UPDATE locks a tag that is there; a new one is inserted at 0 (unlisted until counted).
  await tx`
    insert into tags as t (name, post_count)
    select name, 0 from unnest(${names}::text[]) as name order by name collate "C"
    on conflict (name) do update set post_count = t.post_count`;
  await tx`
    update tags t set post_count = greatest(t.post_count + m.delta, 0)
    from unnest(${names}::text[], ${deltas}::int[]) as m(name, delta)
    where t.name = m.name`;
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
