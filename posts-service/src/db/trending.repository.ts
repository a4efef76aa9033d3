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
/** How many spans of age the second try's reach is cut into, each with its own least engagement. */
const BEAT_SPANS = 8;
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
 * posts that recent), this returns null and the caller sorts every post. It scores only those
 * that could beat the first page's last score (see `Beat`): at ten million posts the reach holds
 * some twenty thousand posts, and all but a few hundred are ruled out before any is scored.
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
  const firstTry = { engaged, recent: engaged, since: null, beat: null };
  const first = await candidatePage(db, filter, need, firstTry, now);
  if (first.proven) return first.ids.slice(offset);
  const second = await candidatePage(db, filter, need, secondTry(first, engaged, now), now);
  return second.proven ? second.ids.slice(offset) : null;
}

/** Every post as far back as the first try's figures ask, scored only where it could beat its page. */
export function secondTry(first: CandidatePage, engaged: number, now: Date): Candidates {
  const since = reachNeeded(first, now);
  if (since === null) return { engaged, recent: MAX_RECENT, since, beat: null };
  const reachHours = (now.getTime() - since.getTime()) / 3_600_000;
  return {
    engaged,
    recent: MAX_RECENT,
    since,
    beat: beating(first.lastScore! / REACH_MARGIN, reachHours, now),
  };
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

export interface Candidates {
  /** How many of the most engaged posts. */
  engaged: number;
  /** How many of the newest posts at most. */
  recent: number;
  /** Every post since this instant, up to `recent` of them; null: the newest `recent`. */
  since: Date | null;
  /** Of the newest, only those that could score `beat.score` or more; null: all of them. */
  beat: Beat | null;
}

/**
 * A test that rules a post out without computing its score. A post a hours old scores
 * E / (a + 2)^1.5: cut the reach into spans of age, and a post of a span whose youngest age is a0
 * scores under `score` whenever E < score × (a0 + 2)^1.5. Comparing its time with the spans'
 * edges and its engagement with their least costs a fraction of the power and the interval's epoch
 * of its score, and reads only what posts_trending_idx holds (migration 0012), not the table. The
 * bound counts a post ruled out as scoring `score`. The spans grow geometrically with a + 2, so a
 * span asks its oldest posts for less than it could by at most a factor of their ratio^1.5 (1.9
 * for a reach of 60 hours): a few more posts scored, none missed.
 */
export interface Beat {
  score: number;
  /** Youngest first: a post since `from` (and not in a younger span) needs `least` engagement. */
  spans: { from: Date; least: number }[];
}

export function beating(score: number, reachHours: number, now: Date): Beat {
  const ratio = Math.pow((reachHours + 2) / 2, 1 / BEAT_SPANS);
  const spans = Array.from({ length: BEAT_SPANS }, (_, i) => {
    const youngest = 2 * Math.pow(ratio, i) - 2;
    const oldest = 2 * Math.pow(ratio, i + 1) - 2;
    return { from: new Date(now.getTime() - oldest * 3_600_000), least: score * Math.pow(youngest + 2, 1.5) };
  });
  return { score, spans };
}

export interface CandidatePage {
  ids: number[];
  proven: boolean;
  /** The page's last score, when the candidates fill the page. */
  lastScore: number | null;
  /** The least engagement among the most engaged candidates. */
  engagedMin: number | null;
}

/** The first `need` ids by trending score among the candidates, and whether they are the full sort's. */
export async function candidatePage(
  db: Db,
  filter: PostFilter,
  need: number,
  m: Candidates,
  now: Date,
): Promise<CandidatePage> {
  const rows = await db<
    { id: number; score: number; complete: boolean; outsideMax: number | null; engagedMin: number | null }[]
  >`${candidateQuery(db, filter, need, m, now)}`;
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

/** The candidates of one try: the first `need` by score, with what the bound needs to prove them. */
export function candidateQuery(db: Db, filter: PostFilter, need: number, m: Candidates, now: Date) {
  return db`
    with recent as (
      select p.id, p.created_at, p.likes, p.replies, p.views from posts p
      where ${whereLive(db, filter)} ${m.since ? db`and p.created_at >= ${m.since}` : db``}
        ${m.beat ? db`and ${engagement(db)} >= ${leastEngagement(db, m.beat, now)}` : db``}
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
        -- when they stopped short of their limit, the instant they were asked to start at; one
        -- of the newest that was ruled out scores under the score it was tested against.
        greatest(
          engaged_min / power(extract(epoch from (${now}::timestamptz
            - case when recent_count < ${m.recent} then ${m.since}::timestamptz else recent_oldest end))::float8 / 3600.0 + 2, 1.5),
          ${m.beat?.score ?? null}::float8
        ) as outside_max
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
}

/** The least engagement that could beat the score at each post's age; a post stamped after `now`, any. */
export function leastEngagement(db: Db, beat: Beat, now: Date) {
  const spans = beat.spans.map(({ from, least }) => db`when p.created_at >= ${from} then ${least}::float8`);
  const oldest = beat.spans.at(-1)!.least;
  return db`case when p.created_at > ${now} then 0 ${spans.reduce((all, span) => db`${all} ${span}`)} else ${oldest}::float8 end`;
}
