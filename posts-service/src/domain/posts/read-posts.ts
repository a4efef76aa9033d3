import { NotFoundError, type ListPostsQuery, type PostDetail, type PostListItem } from '@community/contracts';
import type { Page } from '@community/http-kit';
import { countPosts, findLivePost, listPosts as queryPosts, postsByIds } from '../../db/posts.repository';
import { trendingPageIds } from '../../db/trending.repository';
import type { TxDeps } from '@community/events';
import type { Clock } from '../clock';
import { toDetail, toListItem } from '../representations';
import type { ViewCounter } from './view-counter';

export async function listPosts(
  deps: TxDeps & { clock: Clock },
  query: ListPostsQuery,
): Promise<Page<PostListItem>> {
  const { page, limit, sort, category, author, tag } = query;
  const filter = { category, author, tag };
  const offset = (page - 1) * limit;
  // One instant for the whole answer: the pruned page and its fallback score posts alike.
  const now = deps.clock();
  if (sort === 'trending') {
    const [ids, total] = await Promise.all([
      trendingPageIds(deps.sql, filter, limit, offset, now),
      countPosts(deps.sql, filter),
    ]);
    if (ids)
      return { items: (await postsByIds(deps.sql, ids)).map(toListItem), totalItems: total, page, limit };
  }
  const { rows, total } = await queryPosts(deps.sql, filter, sort, limit, offset, now);
  return { items: rows.map(toListItem), totalItems: total, page, limit };
}

/** Every detail read counts as one view, and the answer already includes it. */
export async function readPost(
  deps: TxDeps,
  views: ViewCounter,
  id: number,
  base: string,
): Promise<PostDetail> {
  const row = await findLivePost(deps.sql, id);
  if (!row) throw new NotFoundError('post');
  return toDetail({ ...row, views: row.views + views.record(id) }, base);
}
