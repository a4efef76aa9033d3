import {
  searchWindow,
  type Actor,
  type Comment,
  type CommentListEntry,
  type ListAllCommentsQuery,
  type ListCommentsQuery,
} from '@community/contracts';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import {
  commentsAfter,
  findLiveComment,
  latestComments,
  latestCommentsAfter,
  listComments as queryComments,
  searchComments,
} from '../../db/comments.repository';
import { findLivePost } from '../../db/posts.repository';
import { toComment } from '../representations';
import { highlightHtml } from '../search';
import { visibleComment, visibleTo } from '../visibility';

/** One flat list with replies included; each reply names its parent. */
export async function listComments(
  deps: TxDeps,
  actor: Actor,
  postId: number,
  query: ListCommentsQuery,
  base: string,
): Promise<Page<Comment>> {
  visibleTo(actor, await findLivePost(deps.sql, postId), 'post');
  const { page, limit, sort } = query;
  const { rows, total } = await queryComments(deps.sql, postId, sort === 'newest', limit, (page - 1) * limit);
  return { items: rows.map((row) => toComment(row, base)), totalItems: total, page, limit };
}

/** The comments of a post after the comment `afterId`, in the list's order (a cursor walk). */
export async function listCommentsAfter(
  deps: TxDeps,
  actor: Actor,
  postId: number,
  query: ListCommentsQuery,
  afterId: number,
  base: string,
): Promise<Slice<Comment>> {
  visibleTo(actor, await findLivePost(deps.sql, postId), 'post');
  const rows = await commentsAfter(deps.sql, postId, query.sort === 'newest', afterId, query.limit + 1);
  return sliceOf(
    rows.map((row) => toComment(row, base)),
    query.limit,
  );
}

export async function readComment(deps: TxDeps, actor: Actor, id: number, base: string): Promise<Comment> {
  return toComment(visibleComment(actor, await findLiveComment(deps.sql, id)), base);
}

/** Comments across posts (DESIGN.md §11): a search, best match first, or the newest first. */
export async function listAllComments(
  deps: TxDeps & { searchSql: Sql },
  { q, author, post, page, limit }: ListAllCommentsQuery,
  base: string,
): Promise<Page<CommentListEntry>> {
  const filter = { author, post };
  const offset = (page - 1) * limit;
  if (q === undefined) {
    const { rows, total } = await latestComments(deps.sql, filter, limit, offset);
    return { items: rows.map((row) => toComment(row, base)), totalItems: total, page, limit };
  }
  const search = { filter, q, ...searchWindow(offset, limit) };
  const { rows, total } = await searchComments(deps.searchSql, search);
  const items = rows.map((row) => ({
    ...toComment(row, base),
    highlight: { content: highlightHtml(row.highlightContent) },
  }));
  return { items, totalItems: total.total, totalCapped: total.capped, page, limit };
}

/** The newest comments across posts after the comment `afterId` (a cursor walk). */
export async function listAllCommentsAfter(
  deps: TxDeps,
  { author, post, limit }: ListAllCommentsQuery,
  afterId: number,
  base: string,
): Promise<Slice<Comment>> {
  const rows = await latestCommentsAfter(deps.sql, { author, post }, afterId, limit + 1);
  return sliceOf(
    rows.map((row) => toComment(row, base)),
    limit,
  );
}
