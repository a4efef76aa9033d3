import { NotFoundError, type Comment, type ListCommentsQuery } from '@community/contracts';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { commentsAfter, findLiveComment, listComments as queryComments } from '../../db/comments.repository';
import { findLivePost } from '../../db/posts.repository';
import { toComment } from '../representations';

/** One flat list with replies included; each reply names its parent. */
export async function listComments(
  deps: TxDeps,
  postId: number,
  query: ListCommentsQuery,
  base: string,
): Promise<Page<Comment>> {
  if (!(await findLivePost(deps.sql, postId))) throw new NotFoundError('post');
  const { page, limit, sort } = query;
  const { rows, total } = await queryComments(deps.sql, postId, sort === 'newest', limit, (page - 1) * limit);
  return { items: rows.map((row) => toComment(row, base)), totalItems: total, page, limit };
}

/** The comments of a post after the comment `afterId`, in the list's order (a cursor walk). */
export async function listCommentsAfter(
  deps: TxDeps,
  postId: number,
  query: ListCommentsQuery,
  afterId: number,
  base: string,
): Promise<Slice<Comment>> {
  if (!(await findLivePost(deps.sql, postId))) throw new NotFoundError('post');
  const rows = await commentsAfter(deps.sql, postId, query.sort === 'newest', afterId, query.limit + 1);
  return sliceOf(
    rows.map((row) => toComment(row, base)),
    query.limit,
  );
}

export async function readComment(deps: TxDeps, id: number, base: string): Promise<Comment> {
  const row = await findLiveComment(deps.sql, id);
  if (!row) throw new NotFoundError('comment');
  return toComment(row, base);
}
