import {
  postOrder,
  searchWindow,
  type Actor,
  type ListPostsQuery,
  type PostDetail,
  type PostListEntry,
  type PostListItem,
} from '@community/contracts';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import {
  countPosts,
  findLivePostAsSeen,
  latestPostsAfter as queryLatestAfter,
  listPosts as queryPosts,
  postsByIds,
} from '../../db/posts.repository';
import { searchPosts, type SearchRow } from '../../db/post-search.repository';
import { trendingPageIds } from '../../db/trending.repository';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import type { Clock } from '../clock';
import { toDetail, toListItem } from '../representations';
import { highlightHtml } from '../search';
import { visibleTo } from '../visibility';
import type { ViewCounter } from './view-counter';

export async function listPosts(
  deps: TxDeps & { clock: Clock; searchSql: Sql },
  query: ListPostsQuery,
): Promise<Page<PostListEntry>> {
  const { page, limit, category, author, tag } = query;
  const filter = { category, author, tag };
  const offset = (page - 1) * limit;
  const order = postOrder(query);
  if (order.q !== undefined) {
    const { rows, total } = await searchPosts(deps.searchSql, {
      filter,
      q: order.q,
      order: order.sort,
      ...searchWindow(offset, limit),
    });
    return {
      items: rows.map(toSearchResult),
      totalItems: total.total,
      totalCapped: total.capped,
      page,
      limit,
    };
  }
  const { sort } = order;
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

function toSearchResult(row: SearchRow): PostListEntry {
  return {
    ...toListItem(row),
    highlight: { title: highlightHtml(row.highlightTitle), content: highlightHtml(row.highlightContent) },
  };
}

/** The latest posts after the post `afterId` (a cursor walk, DESIGN.md §10). */
export async function latestPostsAfter(
  deps: TxDeps,
  query: ListPostsQuery,
  afterId: number,
): Promise<Slice<PostListItem>> {
  const { limit, category, author, tag } = query;
  const rows = await queryLatestAfter(deps.sql, { category, author, tag }, afterId, limit + 1);
  return sliceOf(rows.map(toListItem), limit);
}

/**
 * A post as it stands, its views counting every read so far (written or pending). Reading it counts
 * nothing: a read that is answered with the post counts itself with {@link countView}, so the answer
 * includes it, and a read answered `304 Not Modified` is no view at all (DESIGN.md §10).
 */
export async function currentPost(
  deps: TxDeps,
  views: ViewCounter,
  actor: Actor,
  id: number,
  base: string,
): Promise<PostDetail> {
  const row = await views.counted(id, () => findLivePostAsSeen(deps.sql, id));
  return toDetail(visibleTo(actor, row, 'post'), base);
}

/** Counts the read that answers with `post`: the post as answered, this view included. */
export function countView(views: ViewCounter, post: PostDetail): PostDetail {
  views.record(post.id);
  return { ...post, views: post.views + 1 };
}
