import { postListEntry, timeListEnvelope } from '@community/contracts';
import { searchPosts } from '../../src/db/post-search.repository';
import { createSearchDb } from '../../src/db/search';
import { alice, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// The search pool sends a page's ids as int4[] and reads a post's tags as text[] without asking
// PostgreSQL for its array types (db/search.ts): nothing may depend on a lookup it no longer makes.

/** Every character an array literal gives a meaning to, and text that only looks like one. */
const HOSTILE = [
  ['a,b', 'say "hi"', 'back\\slash', 'ends\\', '{braces}', '}{', 'two words', ' padded ', 'NULL'],
  ['null', '', 'ünïcödé ✓ 日本語 🦆', '\\"', '"', ',', 'tab\there', 'new\nline', '{"a",NULL}'],
];
/** The tags the API accepts (letters, digits and dashes) that come closest. */
const ALLOWED = ['null', '-', '0', 'nan'];

let h: PostsHarness;
/** The posts matching `quillwort`, oldest first, and the tags each holds. */
const posts: { id: number; tags: string[] }[] = [];
beforeAll(async () => {
  h = await startPostsService('search_types');
  const category = (await createCategory(h, 'Ponds')).id;
  const post = (title: string, tags: string[] = []) =>
    createPost(h, alice, { title, content: 'A quillwort grows here.', category_id: category, tags });
  // Title first by relevance, then equal ranks by id descending; newest first by latest.
  posts.push({ id: (await post('Quillwort notes', ALLOWED)).id, tags: ALLOWED });
  for (const tags of HOSTILE) {
    const { id } = await post('Pond plants');
    await h.sql`update posts set tags = ${tags}::text[] where id = ${id}`;
    posts.push({ id, tags });
  }
  posts.push({ id: (await post('More pond plants')).id, tags: [] });
  // Read element by element: what the table holds, whoever parses arrays.
  const stored = await h.sql<{ id: number; tag: string }[]>`
    select p.id, t.tag from posts p, unnest(p.tags) with ordinality t(tag, n) order by p.id, t.n`;
  expect(posts.map(({ id }) => stored.filter((row) => row.id === id).map((row) => row.tag))).toEqual(
    posts.map(({ tags }) => tags),
  );
});
afterAll(() => h.stop());

/** The ids of `posts` at the positions `order`. */
const ids = (order: readonly number[]) => order.map((i) => posts[i]!.id);

it('answers a search over posts with hostile tags with 200 and the page in its order', async () => {
  for (const [query, order] of [
    ['q=quillwort', [0, 3, 2, 1]],
    ['q=quillwort&sort=latest', [3, 2, 1, 0]],
    ['q=quillwort&limit=2&page=2&sort=latest', [1, 0]],
    ['q=quillwort&tag=null', [0, 2]],
  ] as const) {
    const res = await h.call(alice, 'GET', `/posts?${query}`);
    expect([query, res.status]).toEqual([query, 200]);
    timeListEnvelope(postListEntry).parse(res.body);
    expect([query, res.body.data.map((item: { id: number }) => item.id)]).toEqual([query, ids(order)]);
  }
});

it('reads tags and sends ids on the first connection of a search pool whose first statement was cancelled', async () => {
  const search = createSearchDb(h.config.DATABASE_URL, { schema: 'posts', concurrency: 1, timeoutMs: 250 });
  try {
    expect(search.options.fetch_types).toBe(false);
    // The pool's first connection opens on a database too busy to read its catalog in time: its first
    // statement, before the fix the driver's array type lookup, ran into the statement timeout.
    const busy = await h.sql.reserve();
    try {
      await busy`begin`;
      await busy`lock table pg_catalog.pg_type in access exclusive mode`;
      await search`select 1`.catch(() => {});
    } finally {
      await busy`rollback`;
      busy.release();
    }
    const order = ids([2, 0, 3, 1]);
    const rows = await search`
      select id, tags from posts where id = any(${order}::int[]) order by array_position(${order}::int[], id)`;
    expect(rows).toEqual([2, 0, 3, 1].map((i) => posts[i]));
    const found = await searchPosts(search, {
      filter: {},
      q: 'quillwort',
      order: 'latest',
      limit: 4,
      offset: 0,
    });
    expect(found.rows.map(({ id, tags }) => ({ id, tags }))).toEqual([...posts].reverse());
    // Only integers are sent as int4[]: anything else is refused before it reaches PostgreSQL, and the
    // connection serves on (reserved while the pool has open ones: libs/db's `fetchTypes`).
    const one = await search.reserve();
    try {
      for (const refused of [
        [1, 2.5],
        [1, '2,3'],
      ])
        await expect(one`select ${refused}::int[] as ids`).rejects.toThrow(
          'an int4[] parameter holds integers only',
        );
      await expect(one`select ${[1, -2]}::int[] = '{1,-2}' as sent`).resolves.toEqual([{ sent: true }]);
    } finally {
      one.release();
    }
  } finally {
    await search.end();
  }
});
