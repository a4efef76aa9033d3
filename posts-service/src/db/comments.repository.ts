import type { SearchTotal } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import {
  bounded,
  countUpToCap,
  headline,
  matching,
  searchQuery,
  TEXT_HEADLINE,
  type SearchRequest,
} from './search';
import type { CommentRow } from './rows';

type Db = Sql | Tx;
type Fragment = ReturnType<Sql['unsafe']>;

const SELECT_COMMENT = (db: Db, extra: Fragment = db``) => db`
  select c.id, c.post_id, c.parent_id, c.author_id, c.content, c.likes, c.is_hidden, c.created_at, c.updated_at,
         a.username as author_username, a.display_name as author_display_name, a.avatar as author_avatar${extra}
  from comments c
  left join authors a on a.id = c.author_id`;

/**
 * A live comment on a live post, hidden or not (domain/visibility.ts decides who sees it), with
 * whether its post is hidden.
 */
export async function findLiveComment(
  db: Db,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<(CommentRow & { postHidden: boolean; postAuthorId: number }) | null> {
  const [row] = await db<(CommentRow & { postHidden: boolean; postAuthorId: number })[]>`
    ${SELECT_COMMENT(db, db`, p.is_hidden as post_hidden, p.author_id as post_author_id`)}
    join posts p on p.id = c.post_id and p.deleted_at is null
    where c.id = ${id} and c.deleted_at is null
    ${opts.forUpdate ? db`for update of c` : db``}`;
  return row ?? null;
}

/** Hides or shows a comment; true when this call changed it. */
export async function setCommentHidden(tx: Tx, id: number, hidden: boolean): Promise<boolean> {
  const rows =
    await tx`update comments set is_hidden = ${hidden} where id = ${id} and is_hidden <> ${hidden} returning id`;
  return rows.length > 0;
}

export async function listComments(
  db: Db,
  postId: number,
  newestFirst: boolean,
  limit: number,
  offset: number,
): Promise<{ rows: CommentRow[]; total: number }> {
  const order = newestFirst ? db`c.created_at desc, c.id desc` : db`c.created_at asc, c.id asc`;
  const [rows, [count]] = await Promise.all([
    db<CommentRow[]>`
      ${SELECT_COMMENT(db)}
      where c.post_id = ${postId} and c.deleted_at is null and not c.is_hidden
      order by ${order}
      limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`
      select count(*)::int as total from comments c
      where c.post_id = ${postId} and c.deleted_at is null and not c.is_hidden`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/** Live comments of a post after the comment `afterId`, in the list's order: a keyset read. */
export async function commentsAfter(
  db: Db,
  postId: number,
  newestFirst: boolean,
  afterId: number,
  limit: number,
): Promise<CommentRow[]> {
  const position = db`(select created_at, id from comments where id = ${afterId})`;
  return db<CommentRow[]>`
    ${SELECT_COMMENT(db)}
    where c.post_id = ${postId} and c.deleted_at is null and not c.is_hidden
      and ${newestFirst ? db`(c.created_at, c.id) < ${position}` : db`(c.created_at, c.id) > ${position}`}
    order by ${newestFirst ? db`c.created_at desc, c.id desc` : db`c.created_at asc, c.id asc`}
    limit ${limit}`;
}

/** Who wrote it, on which post: the filters of `GET /comments`. */
export interface CommentFilter {
  author?: number;
  post?: number;
}

/**
 * The one place that says which comments a list across posts shows: live, not hidden, on live posts
 * that are not hidden (joined as `p`; DESIGN.md §12). Every cross-post read goes through it.
 */
function whereVisible(db: Db, { author, post }: CommentFilter) {
  return db`c.deleted_at is null and not c.is_hidden and p.deleted_at is null and not p.is_hidden
    ${author !== undefined ? db`and c.author_id = ${author}` : db``}
    ${post !== undefined ? db`and c.post_id = ${post}` : db``}`;
}

const VISIBLE_FROM = (db: Db) => db`comments c join posts p on p.id = c.post_id`;

export interface CommentSearchRow extends CommentRow {
  highlightContent: string;
}

/** Visible comments across posts, newest first. */
export async function latestComments(
  db: Db,
  filter: CommentFilter,
  limit: number,
  offset: number,
): Promise<{ rows: CommentRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db<CommentRow[]>`
      ${SELECT_COMMENT(db)}
      where c.id in (
        select c.id from ${VISIBLE_FROM(db)} where ${whereVisible(db, filter)}
        order by c.created_at desc, c.id desc limit ${limit} offset ${offset})
      order by c.created_at desc, c.id desc`,
    db<{ total: number }[]>`
      select count(*)::int as total from ${VISIBLE_FROM(db)} where ${whereVisible(db, filter)}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/** Visible comments across posts after the comment `afterId`, newest first: a keyset read. */
export async function latestCommentsAfter(
  db: Db,
  filter: CommentFilter,
  afterId: number,
  limit: number,
): Promise<CommentRow[]> {
  return db<CommentRow[]>`
    ${SELECT_COMMENT(db)}
    where c.id in (
      select c.id from ${VISIBLE_FROM(db)}
      where ${whereVisible(db, filter)}
        and (c.created_at, c.id) < (select created_at, id from comments where id = ${afterId})
      order by c.created_at desc, c.id desc limit ${limit})
    order by c.created_at desc, c.id desc`;
}

/**
 * Visible comments matching the search `q` (DESIGN.md §11), best first, then newest; highlighted, and
 * how many match, read on the search pool `db` (db/search.ts). `offset` and `limit` lie within the
 * first SEARCH_CAP matches (`limit` 0 past them).
 */
export async function searchComments(
  db: Sql,
  { filter, q, limit, offset }: SearchRequest<CommentFilter>,
): Promise<{ rows: CommentSearchRow[]; total: SearchTotal }> {
  const ranking = db`ts_rank_cd(c.search, query.q) desc, c.created_at desc, c.id desc`;
  const [rows, total] = await Promise.all([
    limit === 0
      ? []
      : bounded(
          db<CommentSearchRow[]>`
      with query as (select ${searchQuery(db, q)} as q),
      page as (
        select c.id, row_number() over (order by ${ranking}) as position
        from ${VISIBLE_FROM(db)}, query
        where ${whereVisible(db, filter)} and ${matching(db, db`c.search`, db`c.bigrams`, q)}
        order by ${ranking}
        limit ${limit} offset ${offset}
      )
      select x.*, ${headline(db, db`x.content`, TEXT_HEADLINE)} as highlight_content
      from (${SELECT_COMMENT(db)} where c.id in (select id from page)) x
      join page using (id), query
      order by page.position`,
        ),
    bounded(
      countUpToCap(
        db,
        VISIBLE_FROM(db),
        db`${whereVisible(db, filter)} and ${matching(db, db`c.search`, db`c.bigrams`, q)}`,
      ),
    ),
  ]);
  return { rows, total };
}

export async function insertComment(
  tx: Tx,
  comment: { postId: number; parentId: number | null; authorId: number; authorRole: string; content: string },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into comments (post_id, parent_id, author_id, author_role, content)
    values (${comment.postId}, ${comment.parentId}, ${comment.authorId}, ${comment.authorRole}, ${comment.content})
    returning id`;
  return row!.id;
}

export async function updateCommentContent(tx: Tx, id: number, content: string): Promise<void> {
  await tx`update comments set content = ${content}, updated_at = now() where id = ${id}`;
}

/** True when this call deleted it (two concurrent deletes count the reply once). */
export async function softDeleteComment(tx: Tx, id: number): Promise<boolean> {
  const rows =
    await tx`update comments set deleted_at = now() where id = ${id} and deleted_at is null returning id`;
  return rows.length > 0;
}

export async function insertCommentLike(tx: Tx, commentId: number, userId: number): Promise<boolean> {
  const rows = await tx`
    insert into comment_likes (comment_id, user_id) values (${commentId}, ${userId})
    on conflict do nothing returning comment_id`;
  if (rows.length === 0) return false;
  await tx`update comments set likes = likes + 1 where id = ${commentId}`;
  return true;
}

export async function deleteCommentLike(tx: Tx, commentId: number, userId: number): Promise<boolean> {
  const rows = await tx`
    delete from comment_likes where comment_id = ${commentId} and user_id = ${userId} returning comment_id`;
  if (rows.length === 0) return false;
  await tx`update comments set likes = likes - 1 where id = ${commentId}`;
  return true;
}
