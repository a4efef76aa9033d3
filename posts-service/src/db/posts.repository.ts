import { type PostSort } from '@community/contracts';
import { inTransaction, type Sql, type Tx } from '@community/db';
import type { PostRow } from './rows';

type Db = Sql | Tx;
/** A piece of SQL built with the tagged template, to be embedded in another query. */
type Fragment = ReturnType<Sql['unsafe']>;

export interface PostFilter {
  category?: number;
  author?: number;
  tag?: string;
}

export interface NewPost extends Pick<
  PostRow,
  'title' | 'slug' | 'content' | 'authorId' | 'categoryId' | 'tags'
> {
  /** The role the author writes with (flags never hide staff content, DESIGN.md §21). */
  authorRole: string;
}

export type PostChanges = Partial<
  Pick<PostRow, 'title' | 'slug' | 'content' | 'categoryId' | 'tags' | 'isPinned' | 'isLocked'>
>;

/** The joins every post read shares: the author replica and the category. */
export function withAuthorAndCategory(db: Db, source: Fragment) {
  return db`
    select p.id, p.title, p.slug, p.content, p.author_id, p.category_id, p.tags, p.views, p.likes, p.replies,
           p.is_pinned, p.is_locked, p.is_hidden, p.created_at, p.updated_at,
           a.username as author_username, a.display_name as author_display_name, a.avatar as author_avatar,
           c.name as category_name, c.slug as category_slug
    from ${source} p
    left join authors a on a.id = p.author_id
    left join categories c on c.id = p.category_id`;
}

/** The numerator of the trending score; the same expression as the engagement indexes. */
export function engagement(db: Db) {
  return db`((p.likes + 2 * p.replies)::float8 + p.views / 10.0::float8)`;
}

/**
 * Trending score (DESIGN.md §4): (likes + 2·replies + views/10) / (age_hours + 2)^1.5, in float8
 * (numeric `power` is twenty times slower). Computed at read time, exact for the instant `now`.
 */
export function trendingScore(db: Db, now: Date) {
  return db`(${engagement(db)} / power(extract(epoch from (${now}::timestamptz - p.created_at))::float8 / 3600.0 + 2, 1.5))`;
}

function orderBy(db: Db, sort: PostSort, now: Date) {
  switch (sort) {
    case 'popular':
      return db`p.likes desc, p.views desc, p.id desc`;
    case 'trending':
      return db`${trendingScore(db, now)} desc, p.id desc`;
    case 'latest':
      return db`p.created_at desc, p.id desc`;
  }
}

/**
 * The one place that says which posts a list, count or search shows: live and not hidden (DESIGN.md
 * §12). A single post is read with findLivePost and shown by domain/visibility.ts.
 */
export function whereLive(db: Db, { category, author, tag }: PostFilter) {
  return db`p.deleted_at is null and not p.is_hidden
    ${category !== undefined ? db`and p.category_id = ${category}` : db``}
    ${author !== undefined ? db`and p.author_id = ${author}` : db``}
    ${tag !== undefined ? db`and p.tags @> array[${tag}]::text[]` : db``}`;
}

/**
 * Live posts matching `filter`. Unfiltered and per-category totals come from the categories'
 * post_count, kept in the same transaction as every post write, instead of counting 100k rows.
 */
export async function countPosts(db: Db, filter: PostFilter): Promise<number> {
  const { category, author, tag } = filter;
  const [row] =
    author === undefined && tag === undefined
      ? await db<{ total: number }[]>`
          select coalesce(sum(post_count), 0)::int as total from categories
          ${category !== undefined ? db`where id = ${category}` : db``}`
      : await db<
          { total: number }[]
        >`select count(*)::int as total from posts p where ${whereLive(db, filter)}`;
  return row?.total ?? 0;
}

/** Full rows of `ids`, in the order given. */
export async function postsByIds(db: Db, ids: number[]): Promise<PostRow[]> {
  if (ids.length === 0) return [];
  const rows = await db<PostRow[]>`${withAuthorAndCategory(db, db`posts`)} where p.id = any(${ids}::int[])`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is PostRow => row !== undefined);
}

export async function listPosts(
  db: Db,
  filter: PostFilter,
  sort: PostSort,
  limit: number,
  offset: number,
  now: Date,
): Promise<{ rows: PostRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    db<PostRow[]>`
      with page as (
        select p.* from posts p
        where ${whereLive(db, filter)}
        order by ${orderBy(db, sort, now)}
        limit ${limit} offset ${offset}
      )
      ${withAuthorAndCategory(db, db`page`)}
      order by ${orderBy(db, sort, now)}`,
    countPosts(db, filter),
  ]);
  return { rows, total };
}

/**
 * Live posts matching `filter` after the post `afterId` in the latest order (created_at, id
 * descending): a keyset read on the `*_latest_idx` indexes, as cheap at any depth as the first page.
 * The position is read from the row itself, soft-deleted or not, at full timestamp precision.
 */
export async function latestPostsAfter(
  db: Db,
  filter: PostFilter,
  afterId: number,
  limit: number,
): Promise<PostRow[]> {
  return db<PostRow[]>`
    with page as (
      select p.* from posts p
      where ${whereLive(db, filter)}
        and (p.created_at, p.id) < (select created_at, id from posts where id = ${afterId})
      order by p.created_at desc, p.id desc
      limit ${limit}
    )
    ${withAuthorAndCategory(db, db`page`)}
    order by p.created_at desc, p.id desc`;
}

export async function findLivePost(
  db: Db,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<PostRow | null> {
  // Locks only the post row (the joined author and category rows stay free).
  const [row] = await db<PostRow[]>`
    ${withAuthorAndCategory(db, db`posts`)} where p.id = ${id} and p.deleted_at is null
    ${opts.forUpdate ? db`for update of p` : db``}`;
  return row ?? null;
}

/** A row with the snapshot it was read in (`pg_current_snapshot()`), to tell which writes it saw. */
export interface SeenRow {
  views: number;
  snapshot: string;
}

/**
 * {@link findLivePost} with the read's snapshot (db/snapshot.ts), for the views it did not see.
 * One flat template, where the other reads embed {@link withAuthorAndCategory}: this is the hot read,
 * and a query built from fresh fragments leaves garbage that outlives the next scavenge, a pause
 * that a read at one connection meets (bench/RESULTS.md, "The post read without a Proxy or
 * fragments").
 */
export async function findLivePostAsSeen(db: Db, id: number): Promise<(PostRow & SeenRow) | null> {
  const [row] = await db<(PostRow & SeenRow)[]>`
    select p.id, p.title, p.slug, p.content, p.author_id, p.category_id, p.tags, p.views, p.likes, p.replies,
           p.is_pinned, p.is_locked, p.is_hidden, p.created_at, p.updated_at,
           a.username as author_username, a.display_name as author_display_name, a.avatar as author_avatar,
           c.name as category_name, c.slug as category_slug,
           pg_current_snapshot()::text as snapshot
    from posts p
    left join authors a on a.id = p.author_id
    left join categories c on c.id = p.category_id
    where p.id = ${id} and p.deleted_at is null`;
  return row ?? null;
}

export async function insertPost(tx: Tx, post: NewPost): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into posts (title, slug, content, author_id, category_id, tags, author_role)
    values (${post.title}, ${post.slug}, ${post.content}, ${post.authorId}, ${post.categoryId}, ${post.tags}::text[],
            ${post.authorRole})
    returning id`;
  return row!.id;
}

const COLUMNS: Record<keyof PostChanges, string> = {
  title: 'title',
  slug: 'slug',
  content: 'content',
  categoryId: 'category_id',
  tags: 'tags',
  isPinned: 'is_pinned',
  isLocked: 'is_locked',
};

export async function updatePost(tx: Tx, id: number, changes: PostChanges): Promise<void> {
  const columns = (Object.keys(changes) as (keyof PostChanges)[]).map((key) => COLUMNS[key]);
  if (columns.length === 0) return;
  const values = Object.fromEntries(
    (Object.keys(changes) as (keyof PostChanges)[]).map((key) => [COLUMNS[key], changes[key]]),
  );
  await tx`update posts set ${tx(values, columns)}, updated_at = now() where id = ${id}`;
}

/** Hides or shows a post; true when this call changed it. */
export async function setPostHidden(tx: Tx, id: number, hidden: boolean): Promise<boolean> {
  const rows =
    await tx`update posts set is_hidden = ${hidden} where id = ${id} and is_hidden <> ${hidden} returning id`;
  return rows.length > 0;
}

export async function softDeletePost(tx: Tx, id: number): Promise<void> {
  await tx`update posts set deleted_at = now() where id = ${id}`;
}

export async function addReplies(tx: Tx, postId: number, delta: 1 | -1): Promise<void> {
  await tx`update posts set replies = replies + ${delta} where id = ${postId}`;
}

/** Records a like once; true when it is new. */
export async function insertLike(tx: Tx, postId: number, userId: number): Promise<boolean> {
  const rows = await tx`
    insert into post_likes (post_id, user_id) values (${postId}, ${userId}) on conflict do nothing returning post_id`;
  if (rows.length === 0) return false;
  await tx`update posts set likes = likes + 1 where id = ${postId}`;
  return true;
}

/** Removes a like; true when there was one. */
export async function deleteLike(tx: Tx, postId: number, userId: number): Promise<boolean> {
  const rows =
    await tx`delete from post_likes where post_id = ${postId} and user_id = ${userId} returning post_id`;
  if (rows.length === 0) return false;
  await tx`update posts set likes = likes - 1 where id = ${postId}`;
  return true;
}

export async function likeCount(db: Db, postId: number): Promise<number> {
  const [row] = await db<{ likes: number }[]>`select likes from posts where id = ${postId}`;
  return row?.likes ?? 0;
}

/**
 * Adds counted views to their posts, in one statement: views by post id. The rows are locked in id
 * order first, so two batches over the same posts (two replicas) wait for each other, never deadlock.
 * `onTransaction` learns the transaction's id before anything is written, for the readers meanwhile.
 */
export async function addViews(
  sql: Sql,
  views: ReadonlyMap<number, number>,
  onTransaction: (xid: bigint) => void,
): Promise<void> {
  const ids = [...views.keys()];
  await inTransaction(sql, async (tx) => {
    const [current] = await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`;
    onTransaction(BigInt(current!.xid));
    await tx`
      with locked as (select id from posts where id = any(${ids}::int[]) order by id for update)
      update posts p set views = p.views + v.n
      from unnest(${ids}::int[], ${[...views.values()]}::int[]) as v(id, n)
      where p.id = v.id and p.id in (select id from locked)`;
  });
}
