import { postListItem, timeListEnvelope } from '@community/contracts';
import { alice, bob, createCategory } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: PostsHarness;
let news: number;
let misc: number;
/** ids of the seeded posts, by name */
const ids: Record<string, number> = {};

/**
 * Controlled data: five posts with known ages and counters, written straight to the table so every
 * sort has one right answer.
 */
const SEED = [
  {
    name: 'old-popular',
    hoursAgo: 240,
    likes: 50,
    views: 1000,
    replies: 0,
    author: alice,
    tags: ['a'],
    cat: 'news',
  },
  {
    name: 'fresh-quiet',
    hoursAgo: 1,
    likes: 0,
    views: 10,
    replies: 0,
    author: alice,
    tags: ['b'],
    cat: 'news',
  },
  {
    name: 'fresh-hot',
    hoursAgo: 2,
    likes: 10,
    views: 100,
    replies: 5,
    author: bob,
    tags: ['a', 'b'],
    cat: 'misc',
  },
  { name: 'mid', hoursAgo: 24, likes: 10, views: 50, replies: 1, author: bob, tags: [], cat: 'news' },
  { name: 'mid-tie', hoursAgo: 24, likes: 10, views: 50, replies: 1, author: bob, tags: [], cat: 'misc' },
];

beforeAll(async () => {
  h = await startPostsService('postslist');
  news = (await createCategory(h, 'News')).id;
  misc = (await createCategory(h, 'Misc')).id;
  for (const post of SEED) {
    const [row] = await h.sql`
      insert into posts (title, slug, content, author_id, category_id, tags, views, likes, replies, created_at, updated_at)
      values (${post.name}, ${post.name}, 'c', ${post.author.userId}, ${post.cat === 'news' ? news : misc},
              ${post.tags}::text[], ${post.views}, ${post.likes}, ${post.replies},
              now() - make_interval(hours => ${post.hoursAgo}), now())
      returning id`;
    ids[post.name] = row!.id;
  }
  await h.sql`update categories c set post_count = (select count(*) from posts p where p.category_id = c.id)`;
});
afterAll(() => h.stop());

async function titles(query: string) {
  const res = await h.call(alice, 'GET', `/posts${query}`);
  expect(res.status).toBe(200);
  timeListEnvelope(postListItem).parse(res.body);
  return res.body.data.map((p: { title: string }) => p.title);
}

/** The documented trending formula, computed independently of the SQL. */
function trending(p: (typeof SEED)[number]) {
  return (p.likes + 2 * p.replies + p.views / 10) / Math.pow(p.hoursAgo + 2, 1.5);
}

describe('GET /api/v1/posts sorting', () => {
  it('sorts by latest by default: created_at desc, then id desc', async () => {
    expect(await titles('')).toEqual(['fresh-quiet', 'fresh-hot', 'mid-tie', 'mid', 'old-popular']);
    expect(await titles('?sort=latest')).toEqual(await titles(''));
  });

  it('sorts popular by likes, then views, then id desc', async () => {
    expect(await titles('?sort=popular')).toEqual([
      'old-popular',
      'fresh-hot',
      'mid-tie',
      'mid',
      'fresh-quiet',
    ]);
  });

  it('sorts trending by (likes + 2·replies + views/10) / (age_hours + 2)^1.5', async () => {
    const expected = [...SEED]
      .sort((a, b) => trending(b) - trending(a) || ids[b.name]! - ids[a.name]!)
      .map((p) => p.name);
    expect(await titles('?sort=trending')).toEqual(expected);
    expect(expected[0]).toBe('fresh-hot');
  });

  it('refuses an unknown sort with 400', async () => {
    const res = await h.call(alice, 'GET', '/posts?sort=random');
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'sort', code: 'invalid_value' });
    expect(res.body.message).toBe('sort must be one of latest, popular, trending, relevance');
  });
});

describe('GET /api/v1/posts filters', () => {
  it('filters by category, author and tag, alone and together', async () => {
    expect(await titles(`?category=${misc}`)).toEqual(['fresh-hot', 'mid-tie']);
    expect(await titles(`?author=${alice.userId}`)).toEqual(['fresh-quiet', 'old-popular']);
    expect(await titles('?tag=a')).toEqual(['fresh-hot', 'old-popular']);
    expect(await titles('?tag=B')).toEqual(['fresh-quiet', 'fresh-hot']);
    expect(await titles(`?category=${news}&tag=b&author=${alice.userId}`)).toEqual(['fresh-quiet']);
    expect(await titles('?category=999999')).toEqual([]);
  });

  it.each([
    ['category=abc', 'category', 'invalid_type'],
    ['author=0', 'author', 'too_small'],
    ['tag=no%20spaces', 'tag', 'invalid_value'],
  ])('refuses %s', async (query, field, code) => {
    const res = await h.call(alice, 'GET', `/posts?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });
});

describe('GET /api/v1/posts pagination', () => {
  it('computes the pagination object and pages through in order', async () => {
    const first = await h.call(alice, 'GET', '/posts?limit=2');
    expect(first.body.pagination).toEqual({
      current_page: 1,
      total_pages: 3,
      total_items: 5,
      per_page: 2,
      next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });
    const third = await h.call(alice, 'GET', '/posts?limit=2&page=3');
    expect(third.body.data.map((p: { title: string }) => p.title)).toEqual(['old-popular']);
    expect(third.body.pagination.current_page).toBe(3);
  });

  it('sends a Link header with first, prev, next and last that keep filters and limit', async () => {
    const res = await h.call(alice, 'GET', `/posts?category=${news}&limit=1&page=2&sort=popular`);
    const links = Object.fromEntries(
      res.headers
        .get('link')!
        .split(', ')
        .map((part) => {
          const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
          return [rel, new URL(url!)];
        }),
    );
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(links.prev.searchParams.get('page')).toBe('1');
    expect(links.next.searchParams.get('page')).toBe('3');
    expect(links.last.searchParams.get('page')).toBe('3');
    for (const url of Object.values(links) as URL[]) {
      expect(url.pathname).toBe('/api/v1/posts');
      expect(url.searchParams.get('category')).toBe(String(news));
      expect(url.searchParams.get('sort')).toBe('popular');
      expect(url.searchParams.get('limit')).toBe('1');
    }
  });

  it('has no prev on the first page and no next on the last', async () => {
    const first = (await h.call(alice, 'GET', '/posts?limit=5')).headers.get('link')!;
    expect(first).not.toMatch(/rel="prev"/);
    expect(first).not.toMatch(/rel="next"/);
  });

  it('answers a page past the end with 200 and no items', async () => {
    const res = await h.call(alice, 'GET', '/posts?page=50&limit=2');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toEqual({
      current_page: 50,
      total_pages: 3,
      total_items: 5,
      per_page: 2,
      next_cursor: null,
    });
  });

  it('reports zero pages for an empty result', async () => {
    const res = await h.call(alice, 'GET', '/posts?category=999999');
    expect(res.body.pagination).toEqual({
      current_page: 1,
      total_pages: 0,
      total_items: 0,
      per_page: 20,
      next_cursor: null,
    });
  });

  it.each([
    ['limit=0', 'limit', 'too_small'],
    ['limit=101', 'limit', 'too_big'],
    ['limit=ten', 'limit', 'invalid_type'],
    ['limit=', 'limit', 'invalid_type'],
    ['page=0', 'page', 'too_small'],
    ['page=-3', 'page', 'too_small'],
    ['page=1.5', 'page', 'invalid_type'],
    ['page=1&page=2', 'page', 'invalid_type'],
  ])('refuses %s with 400', async (query, field, code) => {
    const res = await h.call(alice, 'GET', `/posts?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });

  it('accepts the limit bounds 1 and 100 and defaults to 20', async () => {
    expect((await h.call(alice, 'GET', '/posts?limit=1')).body.data).toHaveLength(1);
    expect((await h.call(alice, 'GET', '/posts?limit=100')).body.pagination.per_page).toBe(100);
    expect((await h.call(alice, 'GET', '/posts')).body.pagination.per_page).toBe(20);
  });
});

describe('GET /api/v1/posts totals', () => {
  it('keeps total_items exact through creates, moves and deletes', async () => {
    const other = (await h.call(h.admin, 'POST', '/categories', { body: { name: 'Totals' } })).body.data.id;
    const total = async (query: string) => {
      const res = await h.call(alice, 'GET', `/posts?${query}`);
      if (res.status !== 200) throw new Error(res.text);
      return res.body.pagination.total_items;
    };
    const before = await total('');
    const created = await h.call(alice, 'POST', '/posts', {
      body: { title: 't', content: 'c', category_id: news },
    });
    expect(await total('')).toBe(before + 1);
    expect(await total(`category=${news}`)).toBe(4);
    await h.call(alice, 'PUT', `/posts/${created.body.data.id}`, { body: { category_id: other } });
    expect(await total(`category=${news}`)).toBe(3);
    expect(await total(`category=${other}`)).toBe(1);
    await h.call(alice, 'DELETE', `/posts/${created.body.data.id}`);
    expect(await total('')).toBe(before);
    expect(await total(`category=${other}`)).toBe(0);
  });
});
