import { createDb } from '@community/db';
import { serviceSandbox, type ServiceSandbox } from '@community/test-harness';
import { DatabaseNotEmptyError, SEED_PASSWORD, seedDatabase } from '../../../scripts/seed-database';
import { memberNames } from '../../../scripts/seed-rows';
import { createKeyWithSession, logInOnPage } from '../../src/client/account';
import { Browser } from '../../src/client/browser';
import { expectStatus, httpClient, type Call } from '../../src/client/http';
import { startOwnedStack, type OwnedStack } from '../../src/stack/owned-stack';
import { newIp, World } from '../../src/world';

// DESIGN.md §18: `npm run seed` fills a stopped stack's database by COPY; the stack started on it
// then shows what a forum of that size shows, every denormalised counter agreeing with the rows.
// The database is seeded before any service runs on it, as the script's users do.

const POSTS = 2000;
const USERS = 200;
let sandbox: ServiceSandbox | undefined;
let stack: OwnedStack | undefined;
let databaseUrl = '';

beforeAll(async () => {
  sandbox = await serviceSandbox('e2e_seed');
  databaseUrl = sandbox.database.url;
  try {
    await seedDatabase({ databaseUrl, posts: POSTS, users: USERS, append: false });
  } catch (err) {
    await sandbox.cleanup([]);
    sandbox = undefined;
    throw err;
  }
  // On a failed start the stack drops the sandbox itself.
  const lent = sandbox;
  sandbox = undefined;
  stack = await startOwnedStack('seed', { sandbox: lent });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await sandbox?.cleanup([]);
}, 60_000);

/** The rows themselves, read over one connection: what the counters must agree with. */
async function rowsOf() {
  const sql = createDb(databaseUrl, { schema: 'posts', max: 1 });
  try {
    const [totals] = await sql<{ posts: number; comments: number; postLikes: number; users: number }[]>`
      select (select count(*) from posts)::int as posts, (select count(*) from comments)::int as comments,
             (select count(*) from post_likes)::int as post_likes, (select count(*) from users.users)::int as users`;
    const likes = await sql<{ id: number; likes: number }[]>`
      select post_id as id, count(*)::int as likes from post_likes group by post_id`;
    const commentLikes = await sql<{ id: number; likes: number }[]>`
      select comment_id as id, count(*)::int as likes from comment_likes group by comment_id`;
    const tags = await sql<{ name: string; posts: number }[]>`
      select tag as name, count(*)::int as posts from posts, unnest(tags) as tag group by tag`;
    return {
      totals: totals!,
      likesOf: new Map(likes.map((row) => [row.id, row.likes])),
      commentLikesOf: new Map(commentLikes.map((row) => [row.id, row.likes])),
      tagsOf: Object.fromEntries(tags.map((row) => [row.name, row.posts])),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const pageOf = async (as: Call, path: string) => expectStatus(await as('GET', path), 200).body;
const totalOf = async (as: Call, path: string) => (await pageOf(as, path)).pagination.total_items as number;

interface Listed {
  id: number;
  likes: number;
  replies: number;
  category: { id: number };
}

/**
 * Every post `query` lists, a hundred a page, read until a short page: not trusting `total_pages`,
 * which comes from the counters under test (posts.repository.ts countPosts).
 */
async function listed(as: Call, query = ''): Promise<Listed[]> {
  const posts: Listed[] = [];
  for (let page = 1; page <= 100; page++) {
    const { data } = await pageOf(as, `/api/v1/posts?limit=100&page=${page}${query}`);
    posts.push(...data);
    if (data.length < 100) return posts;
  }
  throw new Error(`more than 100 pages of posts${query}`);
}

/** Every tag as the tags list shows it. */
async function allTags(as: Call): Promise<{ name: string; post_count: number }[]> {
  const tags = [];
  for (let page = 1; ; page++) {
    const body = await pageOf(as, `/api/v1/tags?limit=100&page=${page}`);
    tags.push(...body.data);
    if (page >= body.pagination.total_pages) return tags;
  }
}

/** What anyone can count through the API, and the rows: what a refused second seed must leave alone. */
async function census(as: Call) {
  const categories = (await pageOf(as, '/api/v1/categories?limit=100')).data as {
    id: number;
    post_count: number;
  }[];
  return {
    posts: await totalOf(as, '/api/v1/posts?limit=1'),
    categories: categories.map((c) => [c.id, c.post_count]),
    tags: await allTags(as),
    rows: (await rowsOf()).totals,
  };
}

let world: World | undefined;
/** Calls as the stack's admin (keyed once per file). */
async function adminCall(): Promise<Call> {
  world ??= new World(stack!.baseUrl, stack!.admin);
  return world.as(await world.admin());
}

/** Signs in on the account pages as a seeded member, mints a key with the session and calls with it. */
async function signIn(baseUrl: string, username: string): Promise<Call> {
  const ip = newIp();
  const browser = new Browser(baseUrl, ip);
  await logInOnPage(browser, { username, password: SEED_PASSWORD });
  const { key } = await createKeyWithSession(browser, baseUrl, { name: 'seeded', scopes: ['read'] });
  const call = httpClient(baseUrl);
  return (method, path, options = {}) => call(method, path, { key, ip, ...options });
}

describe('npm run seed', () => {
  it('fills a database the stack then serves, every count agreeing with the rows', async () => {
    const admin = await adminCall();
    const { totals, likesOf, commentLikesOf, tagsOf } = await rowsOf();
    expect(totals).toMatchObject({ posts: POSTS, users: USERS + 1 }); // and the admin

    // Paging walks every seeded post once; each shows the likes it has and the comments listed under it,
    // and those comments the likes they have.
    const first = (await pageOf(admin, '/api/v1/posts?limit=100')).pagination;
    expect(first).toMatchObject({ total_items: POSTS, total_pages: POSTS / 100 });
    const posts = await listed(admin);
    expect(posts).toHaveLength(POSTS);
    expect(new Set(posts.map((p) => p.id)).size).toBe(POSTS);
    expect(posts.filter((p) => p.likes !== (likesOf.get(p.id) ?? 0))).toEqual([]);
    const busiest = [...posts].sort((a, b) => b.replies - a.replies).slice(0, 3);
    const quiet = posts.find((p) => p.replies === 0)!;
    for (const post of [...busiest, quiet]) {
      const comments = await pageOf(admin, `/api/v1/posts/${post.id}/comments?limit=100`);
      expect([post.id, comments.pagination.total_items]).toEqual([post.id, post.replies]);
      for (const comment of comments.data as { id: number; likes: number }[])
        expect([comment.id, comment.likes]).toEqual([comment.id, commentLikesOf.get(comment.id) ?? 0]);
    }
    expect(busiest[0]!.replies).toBeGreaterThan(0);
    expect(posts.reduce((sum, p) => sum + p.replies, 0)).toBe(totals.comments);

    // Each category's count is the number of its posts listed.
    const categories = (await pageOf(admin, '/api/v1/categories?limit=100')).data as {
      id: number;
      post_count: number;
    }[];
    for (const category of categories) {
      const inCategory = await listed(admin, `&category=${category.id}`);
      expect([category.id, inCategory.length]).toEqual([category.id, category.post_count]);
      expect(inCategory.every((post) => post.category.id === category.id)).toBe(true);
    }

    // The tags list shows every seeded tag with the posts carrying it, as many as are listed under it.
    const tags = await allTags(admin);
    expect(tags.length).toBeGreaterThan(20);
    expect(Object.fromEntries(tags.map((tag) => [tag.name, tag.post_count]))).toEqual(tagsOf);
    for (const tag of tags.slice(0, 5))
      expect([tag.name, await totalOf(admin, `/api/v1/posts?tag=${tag.name}&limit=1`)]).toEqual([
        tag.name,
        tag.post_count,
      ]);

    // A common seeded word (the first past the stop words) is found, highlighted.
    const found = await pageOf(admin, '/api/v1/posts?q=community&limit=20');
    expect(found.pagination.total_items).toBeGreaterThan(10);
    for (const post of found.data)
      expect(`${post.highlight.title} ${post.highlight.content}`).toMatch(/<mark>community<\/mark>/i);

    // Popular and trending answer, in orders of their own.
    const ids = async (sort: string) =>
      (await pageOf(admin, `/api/v1/posts?sort=${sort}&limit=20`)).data.map((p: Listed) => p.id);
    expect(await ids('trending')).not.toEqual(await ids('popular'));
  }, 60_000);

  it('lets a seeded member sign in with SEED_PASSWORD and shows their stats as listed', async () => {
    const admin = await adminCall();
    // Member 1 is the most prolific (Zipf rank 1).
    const { username } = memberNames(1);
    const member = await signIn(stack!.baseUrl, username);
    const me = (await pageOf(member, '/api/v1/users/me')).data;
    expect(me).toMatchObject({ id: 1, username });
    const { stats } = (await pageOf(admin, '/api/v1/users/1')).data;
    const own = await listed(admin, '&author=1');
    expect(stats).toEqual({
      posts: own.length,
      comments: await totalOf(admin, '/api/v1/comments?author=1&limit=1'),
      likes_received: own.reduce((sum, post) => sum + post.likes, 0),
    });
    expect(stats.posts).toBeGreaterThan(0);
  });

  it('refuses a second seed without append and leaves the database as it was', async () => {
    const admin = await adminCall();
    const before = await census(admin);
    await expect(seedDatabase({ databaseUrl, posts: 10, users: 10, append: false })).rejects.toThrow(
      DatabaseNotEmptyError,
    );
    expect(await census(admin)).toEqual(before);
  });
});
