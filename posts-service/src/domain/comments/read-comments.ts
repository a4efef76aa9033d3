import { NotFoundError, type Comment, type ListCommentsQuery } from '@community/contracts';
import type { Page } from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { findLiveComment, listComments as queryComments } from '../../db/comments.repository';
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

export async function readComment(deps: TxDeps, id: number, base: string): Promise<Comment> {
  const row = await findLiveComment(deps.sql, id);
  if (!row) throw new NotFoundError('comment');
  return toComment(row, base);
}
