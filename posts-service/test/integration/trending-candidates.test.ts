import { trendingPageIds } from '../../src/db/trending.repository';
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
