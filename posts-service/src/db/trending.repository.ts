import type { Sql, Tx } from '@community/db';
import { engagement, trendingScore, whereLive, type PostFilter } from './posts.repository';

type Db = Sql | Tx;

/** How many candidates each index scan contributes, relative to the rows the page needs. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 200;
/**
 * A bound that proves nothing is tried again with this many times the newest posts, up to
 * MAX_RECENT: old viral posts keep the least engaged candidate high, and only newest candidates
 * reaching further back bring the bound under the page. The newest lie together at the end of the
 * table, so reading more of them costs far less than reading more of the most engaged, spread
 * across it (bench/RESULTS.md, "Data at scale").
 */
const RECENT_GROWTH = 4;
const MAX_RECENT = 51_200;
/** Past this depth the bound rarely proves anything; the full scan is used directly. */
const MAX_PRUNED_DEPTH = 2000;

/**
 * The ids of one trending page without scoring every post, when that can be proven exact.
 *
 * Candidates are the newest posts and the most engaged ones (two index scans). Any other post
 * is at least as old as the oldest recent candidate and at most as engaged as the least engaged
 * engaged candidate, so its score is at most E_min / (a_max + 2)^1.5. When the last row of the page
 * scores strictly above that bound, no post outside the candidates can enter the page and the
 * answer equals the full sort. Otherwise this returns null and the caller sorts every post.
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
  for (let recent = engaged; recent <= MAX_RECENT; recent *= RECENT_GROWTH) {
    const ids = await provenPage(db, filter, need, { recent, engaged }, now);
    if (ids) return ids.slice(offset);
  }
  return null;
}

/** The first `need` ids by trending score among the candidates, or null when not proven exact. */
async function provenPage(
  db: Db,
  filter: PostFilter,
  need: number,
  m: { recent: number; engaged: number },
  now: Date,
): Promise<number[] | null> {
  const rows = await db<{ id: number; score: number; complete: boolean; outsideMax: number | null }[]>`
    with recent as (
      select p.id, p.created_at, p.likes, p.replies, p.views from posts p
      where ${whereLive(db, filter)} order by p.created_at desc, p.id desc limit ${m.recent}
    ),
    engaged as (
      select p.id, p.created_at, p.likes, p.replies, p.views from posts p
      where ${whereLive(db, filter)} order by ${engagement(db)} desc, p.id desc limit ${m.engaged}
    ),
    candidates as (select * from recent union select * from engaged),
    bound as (
      select
        (select count(*) from recent) < ${m.recent} or (select count(*) from engaged) < ${m.engaged} as complete,
        (select min(${engagement(db)}) from engaged p)
          / power(extract(epoch from (${now}::timestamptz - (select min(created_at) from recent)))::float8 / 3600.0 + 2, 1.5)
          as outside_max
    )
    select p.id, ${trendingScore(db, now)} as score, bound.complete, bound.outside_max
    from candidates p, bound
    order by ${trendingScore(db, now)} desc, p.id desc
    limit ${need}`;
  const last = rows[need - 1];
  const exact =
    rows[0]?.complete ||
    rows.length === 0 ||
    (last !== undefined && last.score > (last.outsideMax ?? Infinity));
  return exact ? rows.map((row) => row.id) : null;
}
