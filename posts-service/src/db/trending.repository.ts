import type { Sql, Tx } from '@community/db';
import { engagement, trendingScore, whereLive, type PostFilter } from './posts.repository';

type Db = Sql | Tx;

/** How many candidates each index scan contributes, relative to the rows the page needs. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 200;
/** The most newest posts the second try reads; past it the caller sorts every post. */
const MAX_RECENT = 51_200;
/**
 * How much further back than the first bound asks the second try reaches, so rounding in the
 * score cannot leave the page's last row level with the bound: 5 % and six minutes.
 */
const REACH_MARGIN = 1.05;
const REACH_SLACK_HOURS = 0.1;
/** Past this depth the bound rarely proves anything; the full scan is used directly. */
const MAX_PRUNED_DEPTH = 2000;

/**
 * The ids of one trending page without scoring every post, when that can be proven exact.
 *
 * Candidates are the newest posts and the most engaged ones (two index scans). Any other post is at
 * most as engaged as the least engaged candidate (E) and at least as old as the newest ones reach
 * back (a hours), so it scores at most E / (a + 2)^1.5. When the last row of the page scores
 * strictly above that bound, no post outside the candidates can enter the page and the answer
 * equals the full sort.
 *
 * Old viral posts keep E high, so the first bound (as many newest as engaged) often proves nothing.
 * It still says how far back the newest must reach: to where E / (a + 2)^1.5 falls below the page's
 * last score. The second try reads every post since then (the newest lie together at the table's
 * end, so this is one short index range) and proves the page; if it cannot (more than MAX_RECENT
 * posts that recent), this returns null and the caller sorts every post.
 */
export async function trendingPageIds(
  db: Db,
  filter: PostFilter,
  limit: number,
  offset: number,
  now: Date,
): Promise<number[] | null> {
  const need = offset + limit;
  if (filter.tag !== undefined || need > MAX_PRUNED_DEPTH) return null;
  const engaged = Math.max(need * CANDIDATE_FACTOR, MIN_CANDIDATES);
  const first = await candidatePage(db, filter, need, { engaged, recent: engaged, since: null }, now);
  if (first.proven) return first.ids.slice(offset);
  const since = reachNeeded(first, now);
  const second = await candidatePage(db, filter, need, { engaged, recent: MAX_RECENT, since }, now);
  return second.proven ? second.ids.slice(offset) : null;
}

/**
 * Where the newest must reach back to for the first try's page to beat the bound: the age a at which
 * E / (a + 2)^1.5 equals the page's last score, with a margin. Null (the newest MAX_RECENT, which
 * prove the page only when they are every post) when the page's last score is 0: ties at 0 are
 * ordered by id, and no bound separates them.
 */
function reachNeeded(first: CandidatePage, now: Date): Date | null {
  if (first.lastScore === null || first.lastScore <= 0 || first.engagedMin === null) return null;
  const hours = (Math.pow(first.engagedMin / first.lastScore, 2 / 3) - 2) * REACH_MARGIN + REACH_SLACK_HOURS;
  return new Date(now.getTime() - Math.max(hours, 0) * 3_600_000);
}

interface Candidates {
  /** How many of the most engaged posts. */
  engaged: number;
  /** How many of the newest posts at most. */
  recent: number;
  /** Every post since this instant, up to `recent` of them; null: the newest `recent`. */
  since: Date | null;
}

interface CandidatePage {
  ids: number[];
  proven: boolean;
  /** The page's last score, when the candidates fill the page. */
  lastScore: number | null;
  /** The least engagement among the most engaged candidates. */
  engagedMin: number | null;
}

/** The first `need` ids by trending score among the candidates, and whether they are the full sort's. */
async function candidatePage(
  db: Db,
  filter: PostFilter,
  need: number,
  m: Candidates,
  now: Date,
): Promise<CandidatePage> {
  const rows = await db<
    { id: number; score: number; complete: boolean; outsideMax: number | null; engagedMin: number | null }[]
  >`
    with recent as (
      select p.id, p.created_at, p.likes, p.replies, p.views from posts p
      where ${whereLive(db, filter)} ${m.since ? db`and p.created_at >= ${m.since}` : db``}
      order by p.created_at desc, p.id desc limit ${m.recent}
    ),
    engaged as (
      select p.id, p.created_at, p.likes, p.replies, p.views from posts p
      where ${whereLive(db, filter)} order by ${engagement(db)} desc, p.id desc limit ${m.engaged}
    ),
    sizes as (
      select (select count(*) from recent) as recent_count, (select min(created_at) from recent) as recent_oldest,
             (select count(*) from engaged) as engaged_count, (select min(${engagement(db)}) from engaged p) as engaged_min
    ),
    bound as (
      select
        engaged_count < ${m.engaged} or (recent_count < ${m.recent} and ${m.since}::timestamptz is null) as complete,
        engaged_min,
        -- Every post outside the newest is at least as old as the instant they reach back to or,
        -- when they stopped short of their limit, the instant they were asked to start at.
        engaged_min / power(extract(epoch from (${now}::timestamptz
          - case when recent_count < ${m.recent} then ${m.since}::timestamptz else recent_oldest end))::float8 / 3600.0 + 2, 1.5)
          as outside_max
      from sizes
    ),
    -- Each row of the page is among the first rows of either set by score: ranking each set apart
    -- leaves a few dozen rows to merge rather than every candidate to de-duplicate.
    page as (
      (select p.id, ${trendingScore(db, now)} as score from recent p order by 2 desc, 1 desc limit ${need})
      union
      (select p.id, ${trendingScore(db, now)} as score from engaged p order by 2 desc, 1 desc limit ${need})
    )
    select page.id, page.score, bound.complete, bound.outside_max, bound.engaged_min
    from page, bound
    order by page.score desc, page.id desc
    limit ${need}`;
  const last = rows[need - 1];
  const proven =
    rows.length === 0 ||
    rows[0]?.complete ||
    (last !== undefined && last.score > (last.outsideMax ?? Infinity));
  return {
    ids: rows.map((row) => row.id),
    proven,
    lastScore: last?.score ?? null,
    engagedMin: rows[0]?.engagedMin ?? null,
  };
}
