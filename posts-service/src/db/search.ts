import { SEARCH_CAP, SearchTimeoutError, searchTotal, type SearchTotal } from '@community/contracts';
import { createDb, type Sql, type Tx } from '@community/db';
import type { PostgresType } from 'postgres';
import { parse as parseArray } from 'postgres-array';

/*
 * Full-text search (DESIGN.md §11): the query and the highlights, shared by posts and comments. The
 * text search configuration `search_english` (migration 0004) stems English and folds accents.
 */

type Db = Sql | Tx;
type Fragment = ReturnType<Sql['unsafe']>;

/**
 * The marks ts_headline puts around a match: private-use characters, stripped from the text before
 * it is highlighted, so that nothing in a post can pass for one. domain/search.ts turns them into
 * `<mark>` once everything else is escaped.
 */
export const HIGHLIGHT = { start: '\ue000', stop: '\ue001' } as const;
const MARKS = `StartSel="${HIGHLIGHT.start}", StopSel="${HIGHLIGHT.stop}"`;
/** ts_headline's options for long text: up to two fragments of about 12–30 words. */
export const TEXT_HEADLINE = 'MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … "';

/** `q` in web-search syntax (phrases, `-word`, `or`), stemmed and unaccented like the stored text. */
export const searchQuery = (db: Db, q: string) => db`websearch_to_tsquery('search_english', ${q})`;

/**
 * Rows whose search vector `vector` matches `q`. A phrase's matches are narrowed first to the rows
 * holding each pair of its words side by side (`bigrams`, migration 0008), found by index, instead of
 * every row holding its words; `@@` still decides. In a search's own plan (`bounded`) the pairs are
 * folded to a constant, so a `q` without a phrase keeps only the `@@`.
 */
export function matching(db: Db, vector: Fragment, bigrams: Fragment, q: string): Fragment {
  const pairs = db`tsquery_bigrams(${searchQuery(db, q)})`;
  return db`(${vector} @@ ${searchQuery(db, q)} and (${pairs} = '{}' or ${bigrams} @> ${pairs}))`;
}

/**
 * A highlight of `column` for the query `query.q`, the marks stripped from the text first; `options`
 * are ts_headline's (fragments, words), the marks are added here.
 */
export const headline = (db: Db, column: Fragment, options: string) =>
  db`ts_headline('search_english', translate(${column}, ${HIGHLIGHT.start + HIGHLIGHT.stop}, ''), query.q, ${`${options}, ${MARKS}`})`;

/**
 * How many rows of `from` match `where`, counted up to SEARCH_CAP + 1: enough to tell a capped total,
 * without reading every match of a common word.
 */
export async function countUpToCap(db: Db, from: Fragment, where: Fragment): Promise<SearchTotal> {
  const [row] = await db<{ count: number }[]>`
    select count(*)::int as count from (select 1 from ${from} where ${where} limit ${SEARCH_CAP + 1}) m`;
  return searchTotal(row?.count ?? 0);
}

/** One page of a search: what to match and which page. */
export interface SearchRequest<F> {
  filter: F;
  q: string;
  limit: number;
  offset: number;
}

/** PostgreSQL's query_canceled: here, the statement timeout of a search. */
const QUERY_CANCELED = '57014';

/** Built-in array types' OIDs (pg_type.typarray), the same in every PostgreSQL database. */
const INT4_ARRAY = 1007;
const TEXT_ARRAY = 1009;

/**
 * int4[] as PostgreSQL's array literal, `{1,2,3}`. Anything but integers is refused: written out as
 * it is, a string element could end the literal or add elements to it (`'1,2'`).
 */
function int4ArrayLiteral(values: unknown): string {
  if (!Array.isArray(values) || !values.every((value) => Number.isInteger(value)))
    throw new TypeError('an int4[] parameter holds integers only');
  return `{${values.join(',')}}`;
}

/**
 * Sending text[]: no search does, and its literal needs quoting. Refused (the query rejects before it
 * is sent, the connection serves on), so that a new use is declared, not guessed.
 */
const unsentTextArray = (): never => {
  throw new TypeError('the search pool does not send text[]: declare it in SEARCH_TYPES (db/search.ts)');
};

/**
 * Every array type the search pool's queries send or read: a page's ids, sent as int4[]
 * (posts.repository.ts `highlighted`), and a post's tags, read as text[] (`withAuthorAndCategory`).
 * The parser is node-postgres's, `postgres-array`: postgres.js exports none of its own.
 */
const SEARCH_TYPES = {
  int4Array: {
    to: INT4_ARRAY,
    from: [INT4_ARRAY],
    serialize: int4ArrayLiteral,
    // No search reads one; parsed anyway, as a row is no place to throw.
    parse: (text: string) => parseArray(text, Number),
  },
  textArray: {
    to: TEXT_ARRAY,
    from: [TEXT_ARRAY],
    serialize: unsentTextArray,
    parse: (text: string) => parseArray(text),
  },
} satisfies Record<string, PostgresType>;

/**
 * The connections searches run on: a pool of their own, two for each of the SEARCH_CONCURRENCY
 * searches at once (a page and its count), so a flood of searches never takes the connections every
 * other request reads with. Each connection starts with the two settings a search needs, with no
 * transaction to set them in (three round trips a query saved):
 *
 * - `statement_timeout` (SEARCH_TIMEOUT_MS, 1 s): a search broad enough to need longer — common words
 *   joined by `or` over a large forum — is refused (see {@link bounded}) instead of holding a
 *   connection and the database's CPU. Queries with more terms or `or`s than that never get here
 *   (domain/search.ts `assertSearchable`).
 * - `plan_cache_mode = force_custom_plan`: each statement is planned for its own `q`. PostgreSQL's
 *   generic plan of a prepared search knows neither how many posts the words match nor the query
 *   itself: it counted a common word's matches through the whole GIN bitmap where a scan that
 *   stops at the cap is faster, and parsed the query again for every row it ranked, to save a
 *   planning that costs far less (bench/RESULTS.md, "Search (issue #18): plans made for each q").
 *
 * The pool declares its array types ({@link SEARCH_TYPES}) instead of letting postgres.js look them
 * up as each new connection's first statement. Under the statement timeout that lookup failed on a
 * database too busy to answer it in time, and the driver drops its failure (porsager/postgres#1192):
 * unless another of its connections had found them, the pool went on without array types, sending a
 * page's ids as a malformed literal (a 500) and reading tags as one string. With nothing looked up,
 * a query on this pool that sends or reads another array type must declare it there.
 */
export function createSearchDb(
  url: string,
  { schema, concurrency, timeoutMs }: { schema: string; concurrency: number; timeoutMs: number },
): Sql {
  return createDb(url, {
    schema,
    max: 2 * concurrency,
    settings: { statement_timeout: String(timeoutMs), plan_cache_mode: 'force_custom_plan' },
    fetchTypes: false,
    types: SEARCH_TYPES,
  });
}

/**
 * A search's queries, on the search pool: one that ran out of time is `503 search_timeout` with
 * `Retry-After` (DESIGN.md §21). Within the term and `or` limits that is a search matching too much
 * for the moment's load, which a narrower query or a later try gets past.
 */
export async function bounded<T>(search: Promise<T>): Promise<T> {
  try {
    return await search;
  } catch (err) {
    if ((err as { code?: string }).code !== QUERY_CANCELED) throw err;
    throw new SearchTimeoutError();
  }
}
