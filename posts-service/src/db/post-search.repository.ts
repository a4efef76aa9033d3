import { searchTotal, type SearchTotal } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import { whereLive, withAuthorAndCategory, type PostFilter } from './posts.repository';
import type { PostRow } from './rows';
import {
  bounded,
  countUpToCap,
  headline,
  matching,
  queryShape,
  searchQuery,
  TEXT_HEADLINE,
  type QueryShape,
  type SearchRequest,
} from './search';

type Db = Sql | Tx;
/** A piece of SQL built with the tagged template, to be embedded in another query. */
type Fragment = ReturnType<Sql['unsafe']>;

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
  const shape = await bounded(queryShape(search, q));
  if (request.order === 'relevance' && shape.phrase) {
    // A phrase is checked against the word positions of every post holding its words: ranking sees
    // every match, so it counts them too, instead of a second query checking them all again.
    return bounded(
      (async () => {
        const { ids, total } = await relevantIds(search, request, shape);
        return { rows: await highlighted(search, ids, q), total: total ?? (await countAll()) };
      })(),
    );
  }
  const pageIds = request.order === 'relevance' ? relevantIds : latestIds;
  const [rows, total] = await Promise.all([
    bounded((async () => highlighted(search, (await pageIds(search, request, shape)).ids, q))()),
    bounded(countAll()),
  ]);
  return { rows, total };
}

/** A page's ids, and how many match when finding them took counting them. */
interface PageIds {
  ids: number[];
  total?: SearchTotal;
}

/**
 * By relevance: matches in the title first, then the rest, each by ts_rank_cd over title (A), tags
 * (B) and content (C). The two groups are ranked apart, so a page within the title matches ranks
 * those alone, found by their own index, instead of every post that mentions the word.
 */
async function relevantIds(
  db: Db,
  { filter, q, limit, offset }: SearchRequest<PostFilter>,
  { negates }: QueryShape,
): Promise<PageIds> {
  const query = searchQuery(db, q);
  // Without a `-word` every title match is a match; with one, the content may hold the excluded word.
  const inTitle = negates
    ? db`p.title_search @@ ${query} and ${matchingPost(db, q)}`
    : db`p.title_search @@ ${query}`;
  const ranked = (where: Fragment, counted: Fragment) => db`
    select p.id${counted} from posts p
    where ${whereLive(db, filter)} and ${where}
    order by ts_rank_cd(p.search, ${query}) desc, p.id desc`;
  // The title matches up to the page's end: fewer are all there are, and the page reaches past them.
  const titled = await db<{ id: number }[]>`${ranked(inTitle, db``)} limit ${offset + limit}`;
  const ids = titled.slice(offset).map((row) => row.id);
  if (titled.length === offset + limit) return { ids };
  const skip = Math.max(0, offset - titled.length);
  // Ranking the rest reads all of it: `matches` counts it, whatever the page.
  const rest = await db<{ id: number; matches: number }[]>`
    ${ranked(db`${matchingPost(db, q)} and not (${inTitle})`, db`, count(*) over ()::int as matches`)}
    limit ${offset + limit - Math.max(offset, titled.length)} offset ${skip}`;
  return {
    ids: [...ids, ...rest.map((row) => row.id)],
    total: rest.length > 0 || skip === 0 ? searchTotal(titled.length + (rest[0]?.matches ?? 0)) : undefined,
  };
}

/** Newest first: on a common word, the newest posts are read until the page is full. */
async function latestIds(db: Db, { filter, q, limit, offset }: SearchRequest<PostFilter>): Promise<PageIds> {
  const rows = await db<{ id: number }[]>`
    select p.id from posts p
    where ${whereLive(db, filter)} and ${matchingPost(db, q)}
    order by p.created_at desc, p.id desc
    limit ${limit} offset ${offset}`;
  return { ids: rows.map((row) => row.id) };
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
