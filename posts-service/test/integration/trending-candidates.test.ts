import {
  beating,
  candidatePage,
  candidateQuery,
  leastEngagement,
  secondTry,
  trendingPageIds,
} from '../../src/db/trending.repository';
import { alice, createCategory } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

/**
 * sort=trending proves a page exact from the newest and the most engaged posts; when old viral
 * posts hold the first bound above the page, every post since the instant that bound names proves
 * it instead of a sort of every post.
 */
const NOW = new Date(Date.now() + 3600 * 1000);

let h: PostsHarness;
let quiet: number;

beforeAll(async () => {
  h = await startPostsService('trending_candidates', { clock: () => NOW });
  const category = (await createCategory(h, 'Candidates')).id;
  // 2,000 posts an hour apart; a quarter of those older than 1,000 hours went viral.
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id, likes, created_at, updated_at)
    select 'p' || i, 'p' || i, 'c', 1, ${category},
           case when i > 1000 and i % 4 = 0 then 5000 else 1 + i % 5 end,
           ${NOW}::timestamptz - i * interval '1 hour', now()
    from generate_series(1, 2000) i`;
  // One stamped by a clock 90 minutes ahead: younger than any age the reach's test assumes.
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id, views, created_at, updated_at)
    values ('ahead', 'ahead', 'c', 1, ${category}, 3, ${NOW}::timestamptz + interval '90 minutes', now())`;
  // 300 posts nobody engaged with: every score is 0, and ties are ordered by id.
  quiet = (await createCategory(h, 'Quiet')).id;
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id, created_at, updated_at)
    select 'q' || i, 'q' || i, 'c', 1, ${quiet}, ${NOW}::timestamptz - i * interval '1 minute', now()
    from generate_series(1, 300) i`;
  await h.sql`update categories c set post_count = (select count(*) from posts p where p.category_id = c.id)`;
});
afterAll(() => h.stop());

function fullSort(category: number, limit: number, offset = 0) {
  return h.sql<{ id: number }[]>`
    select id from posts where category_id = ${category}
    order by ((likes + 2 * replies)::float8 + views / 10.0::float8)
             / power(extract(epoch from (${NOW}::timestamptz - created_at))::float8 / 3600.0 + 2, 1.5) desc, id desc
    limit ${limit} offset ${offset}`;
}

it('proves the first page from more candidates when old viral posts keep the first bound above it', async () => {
  const expected = await h.sql<{ id: number }[]>`
    select id from posts
    order by ((likes + 2 * replies)::float8 + views / 10.0::float8)
             / power(extract(epoch from (${NOW}::timestamptz - created_at))::float8 / 3600.0 + 2, 1.5) desc, id desc
    limit 20`;
  expect(await trendingPageIds(h.sql, {}, 20, 0, NOW)).toEqual(expected.map((row) => row.id));
  const res = await h.call(alice, 'GET', '/posts?sort=trending');
  expect(res.body.data.map((p: { id: number }) => p.id)).toEqual(expected.map((row) => row.id));
});

it('proves a deep page from the same reach back', async () => {
  const [category] = await h.sql<{ id: number }[]>`select category_id as id from posts where title = 'p1'`;
  const expected = await fullSort(category!.id, 20, 40);
  expect(await trendingPageIds(h.sql, { category: category!.id }, 20, 40, NOW)).toEqual(
    expected.map((row) => row.id),
  );
});

it('answers a forum where every score is 0 from its newest posts, ordered by id', async () => {
  const expected = await fullSort(quiet, 20, 40);
  expect(expected.map((row) => row.id)).toEqual([...expected.map((row) => row.id)].sort((a, b) => b - a));
  expect(await trendingPageIds(h.sql, { category: quiet }, 20, 40, NOW)).toEqual(
    expected.map((row) => row.id),
  );
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

it('reads the reach on its index alone and scores only the posts that could beat the page', async () => {
  // As a settled table is: vacuumed, so its pages are known to hold only rows every reader sees.
  await h.sql`vacuum analyze posts`;
  const first = await candidatePage(
    h.sql,
    {},
    20,
    { engaged: 200, recent: 200, since: null, beat: null },
    NOW,
  );
  expect(first.proven).toBe(false);
  const second = secondTry(first, 200, NOW);
  expect(second.beat).not.toBeNull();
  const plan = await h.sql.begin(async (tx) => {
    // Between the indexes that read in date order: a small table could be sorted whole instead.
    await tx`set local enable_bitmapscan = off`;
    await tx`set local enable_seqscan = off`;
    const [row] = await tx<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
      explain (analyze, format json) ${candidateQuery(tx, {}, 20, second, NOW)}`;
    return row!['QUERY PLAN'][0].Plan;
  });
  const scan = nodes(plan).find((node) => node['Index Name'] === 'posts_trending_idx');
  expect(scan).toMatchObject({ 'Node Type': 'Index Only Scan', 'Heap Fetches': 0 });
  expect(scan!['Rows Removed by Filter']).toBeGreaterThan(scan!['Actual Rows']!);
});

it('rules a post out only when it scores under the score it was tested against', async () => {
  const beat = beating(1, 100, NOW);
  const [row] = await h.sql<{ ruledOut: number; wrongly: number }[]>`
    with p as (
      select ${NOW}::timestamptz - (random() * 104 - 2) * interval '1 hour' as created_at, random() * 2500 as e
      from generate_series(1, 20000)
    )
    select count(*) filter (where e < ${leastEngagement(h.sql, beat, NOW)})::int as ruled_out,
           count(*) filter (where e < ${leastEngagement(h.sql, beat, NOW)}
             and e / power(extract(epoch from ${NOW}::timestamptz - created_at)::float8 / 3600 + 2, 1.5) >= 1)::int
             as wrongly
    from p`;
  expect(row!.ruledOut).toBeGreaterThan(1_000);
  expect(row!.wrongly).toBe(0);
});

it('proves nothing from a reach whose test ruled out posts that would have made the page', async () => {
  const since = new Date(NOW.getTime() - 3000 * 3600 * 1000);
  const tooStrict = { engaged: 200, recent: 51_200, since, beat: beating(1000, 3000, NOW) };
  expect((await candidatePage(h.sql, {}, 20, tooStrict, NOW)).proven).toBe(false);
});
