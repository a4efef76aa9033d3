import { NotFoundError, type ListPostsQuery, type PostDetail, type PostListItem } from '@community/contracts';
import type { Page } from '@community/http-kit';
import { listPosts as queryPosts, viewPost } from '../../db/posts.repository';
import type { Deps } from '../deps';
import { toDetail, toListItem } from '../representations';

export async function listPosts(deps: Deps, query: ListPostsQuery): Promise<Page<PostListItem>> {
  const { page, limit, sort, category, author, tag } = query;
  const { rows, total } = await queryPosts(
    deps.sql,
    { category, author, tag },
    sort,
    limit,
    (page - 1) * limit,
  );
  return { items: rows.map(toListItem), totalItems: total, page, limit };
}

/** Every detail read counts as one view, and the answer already includes it. */
export async function readPost(deps: Deps, id: number): Promise<PostDetail> {
  const row = await viewPost(deps.sql, id);
  if (!row) throw new NotFoundError('post');
  return toDetail(row);
}
