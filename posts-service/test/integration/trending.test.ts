import { createCategory } from '../support/fixtures';
import { alice } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

/**
 * sort=trending answers from a pruned candidate set when it can prove the page exact; these tests
 * compare every answer with a full sort of all posts by the documented formula. Scores depend on
 * the instant they are computed for, so the service's clock is fixed and the full sort uses the
 * same instant: two posts with near-equal scores can no longer swap between the two computations.
 * The instant is a week ahead of the data, so a service that scored by its own clock would fail.
 */
const NOW = new Date(Date.now() + 7 * 24 * 3600 * 1000);

let h: PostsHarness;
let categories: number[];

beforeAll(async () => {
  h = await startPostsService('trending', { clock: () => NOW });
  categories = [(await createCategory(h, 'T1')).id, (await createCategory(h, 'T2')).id];
  // 900 posts: a seeded pseudo-random mix of fresh, old, quiet and viral ones.
  await h.sql`select setseed(0.42)`;
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id, tags, views, likes, replies, created_at, updated_at)
    select 'p' || i, 'p' || i, 'c', 1 + (i % 3), ${categories[0]!} + (i % 2), array['t' || (i % 4)],
           (random() * 3000)::int,
           case when i % 97 = 0 then 5000 else (random() * random() * 200)::int end,
           (random() * 30)::int,
           now() - random() * interval '60 days', now()
    from generate_series(1, 900) i`;
  await h.sql`update categories c set post_count = (select count(*) from posts p where p.category_id = c.id)`;
});
afterAll(() => h.stop());

async function fullSort(where: string): Promise<number[]> {
  const rows = await h.sql.unsafe(
    `select id from posts p where deleted_at is null ${where}
     order by ((likes + 2 * replies)::float8 + views / 10.0::float8)
              / power(extract(epoch from ($1::timestamptz - created_at))::float8 / 3600.0 + 2, 1.5) desc, id desc`,
    [NOW.toISOString()],
  );
  return rows.map((row) => row.id as number);
}

it.each([
  ['', ''],
  ['&category=CAT', 'and category_id = CAT'],
  ['&author=2', 'and author_id = 2'],
  ['&tag=t1', "and tags @> array['t1']"],
])('matches the full sort page by page (filter %p)', async (query, where) => {
  const expected = await fullSort(where.replace('CAT', String(categories[1])));
  for (const [page, limit] of [
    [1, 20],
    [2, 20],
    [7, 20],
    [1, 100],
    [4, 100],
    [30, 30],
  ] as const) {
    const res = await h.call(
      alice,
      'GET',
      `/posts?sort=trending&page=${page}&limit=${limit}${query.replace('CAT', String(categories[1]))}`,
    );
    expect(res.status).toBe(200);
    const ids = res.body.data.map((p: { id: number }) => p.id);
    expect(ids).toEqual(expected.slice((page - 1) * limit, page * limit));
    expect(res.body.pagination.total_items).toBe(expected.length);
  }
});

it('stays exact when the newest posts are quiet and old ones are viral', async () => {
  await h.sql`update posts set likes = 0, views = 0, replies = 0 where created_at > now() - interval '10 days'`;
  await h.sql`update posts set likes = 10000 where id % 5 = 0 and created_at < now() - interval '50 days'`;
  const expected = await fullSort('');
  for (const page of [1, 3, 12]) {
    const res = await h.call(alice, 'GET', `/posts?sort=trending&page=${page}&limit=50`);
    expect(res.body.data.map((p: { id: number }) => p.id)).toEqual(
      expected.slice((page - 1) * 50, page * 50),
    );
  }
});
