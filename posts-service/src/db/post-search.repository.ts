import { SEARCH_CAP, type SearchTotal } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import { whereLive, withAuthorAndCategory, type PostFilter } from './posts.repository';
import type { PostRow } from './rows';
import {
  bounded,
  countUpToCap,
  headline,
  matching,
  searchQuery,
  TEXT_HEADLINE,
  type SearchRequest,
} from './search';

type Db = Sql | Tx;

/** Posts matching the search `q`: title, tags and content. */
const matchingPost = (db: Db, q: string) => matching(db, db`p.search`, db`p.bigrams`, q);

/** How search results are ordered: title matches first, then by rank; or newest first. */
export type SearchOrder = 'relevance' | 'latest';

export interface SearchRow extends PostRow {
  /** Fragments with every match between HIGHLIGHT's marks (db/search.ts). */
  highlightTitle: string;
  highlightContent: string;
}

/**
 * One page of the live posts matching `filter` and the search `q` (DESIGN.md §11), highlighted, and
 * how many match, read on the search pool `search` (db/search.ts). `offset` and `limit` lie within
 * the first SEARCH_CAP matches (`limit` 0 past them).
 */
export async function searchPosts(
  search: Sql,
  request: SearchRequest<PostFilter> & { order: SearchOrder },
): Promise<{ rows: SearchRow[]; total: SearchTotal }> {
  const { filter, q, limit } = request;
  const countAll = () =>
    countUpToCap(
      search,
      search`posts p`,
      search`${whereLive(search, filter)} and ${matchingPost(search, q)}`,
    );
  if (limit === 0) return { rows: [], total: await bounded(countAll()) };
  const pageIds = request.order === 'relevance' ? relevantIds : latestIds;
  const [rows, total] = await Promise.all([
    bounded((async () => highlighted(search, await pageIds(search, request), q))()),
    bounded(countAll()),
  ]);
  return { rows, total };
}

/**
 * How many matches relevance ranks: the newest SEARCH_CAP, the most a search serves. Ranking every
 * match read each one's search vector, so a common word cost more the larger the forum (bench/RESULTS.md,
 * "Data at scale"); the newest are read in date order on an index, as sort=latest reads.
 */
export const RANKED_MATCHES = SEARCH_CAP;

/**
 * The newest RANKED_MATCHES matches with what ranks them. Every column it reads is in
 * posts_live_search_idx (migration 0011), so PostgreSQL can walk that index alone: a column added
 * here belongs there too.
 */
export const rankedCandidates = (db: Db, filter: PostFilter, q: string) => db`
  select p.id, p.search, p.title_search from posts p
  where ${whereLive(db, filter)} and ${matchingPost(db, q)}
  order by p.created_at desc, p.id desc
  limit ${RANKED_MATCHES}`;

/**
 * By relevance, among the newest RANKED_MATCHES matches: those matching in the title first, then the
 * rest, each by ts_rank_cd over title (A), tags (B) and content (C).
 */
async function relevantIds(
  db: Db,
  { filter, q, limit, offset }: SearchRequest<PostFilter>,
): Promise<number[]> {
  const query = searchQuery(db, q);
  const rows = await db<{ id: number }[]>`
    select m.id from (${rankedCandidates(db, filter, q)}) m
    order by m.title_search @@ ${query} desc, ts_rank_cd(m.search, ${query}) desc, m.id desc
    limit ${limit} offset ${offset}`;
  return rows.map((row) => row.id);
}

/** Newest first: on a common word, the newest posts are read until the page is full. */
async function latestIds(db: Db, { filter, q, limit, offset }: SearchRequest<PostFilter>): Promise<number[]> {
  const rows = await db<{ id: number }[]>`
    select p.id from posts p
    where ${whereLive(db, filter)} and ${matchingPost(db, q)}
    order by p.created_at desc, p.id desc
    limit ${limit} offset ${offset}`;
  return rows.map((row) => row.id);
}

/** The posts `ids`, in that order, with highlights of the search `q` (ts_headline reads the whole text). */
async function highlighted(db: Db, ids: number[], q: string): Promise<SearchRow[]> {
  if (ids.length === 0) return [];
  return db<SearchRow[]>`
    with query as (select ${searchQuery(db, q)} as q)
    select x.*,
           ${headline(db, db`x.title`, 'HighlightAll=true')} as highlight_title,
           ${headline(db, db`x.content`, TEXT_HEADLINE)} as highlight_content
    from (${withAuthorAndCategory(db, db`posts`)} where p.id = any(${ids}::int[])) x, query
    order by array_position(${ids}::int[], x.id)`;
}
