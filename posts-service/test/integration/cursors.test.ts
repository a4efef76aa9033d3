import { cursorPaginationSchema, timeListEnvelope, postListItem } from '@community/contracts';
import { alice, bob, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §10: the time-ordered lists walk by cursor, every original item exactly once however
// much is created and deleted meanwhile, any page as cheap as the first.

let h: PostsHarness;
let category: number;
/** The 1,000 posts that exist when the walks begin, newest first. */
let originals: number[];

beforeAll(async () => {
  h = await startPostsService('cursors');
  category = (await createCategory(h, 'Walks')).id;
  // In batches of 200 sharing one created_at: ties broken by id must still be walked exactly once.
  const rows = await h.sql<{ id: number }[]>`
    insert into posts (title, slug, content, author_id, category_id, tags, created_at, updated_at)
    select 'walk ' || i, 'walk-' || i, 'c', ${alice.userId}, ${category}, '{}',
           now() - make_interval(mins => i / 200), now()
    from generate_series(1, 1000) i
    returning id`;
  // Written past the API: the category's count that list totals read is set to match.
  await h.sql`update categories set post_count = post_count + 1000 where id = ${category}`;
  originals = (
    await h.sql<{ id: number }[]>`
      select id from posts where id = any(${rows.map((r) => r.id)}::int[]) order by created_at desc, id desc`
  ).map((r) => r.id);
}, 60_000);
afterAll(() => h.stop());

const list = (query: string) => h.call(alice, 'GET', `/posts?${query}`);

/** Follows next_cursor from a first page of the category's list until the last page. */
async function walk(onPage: (lastSeen: number) => Promise<void> = async () => undefined) {
  const filters = `limit=50&category=${category}`;
  const seen: number[] = [];
  let res = await list(filters);
  for (let pages = 0; ; pages++) {
    expect(res.status).toBe(200);
    expect(pages).toBeLessThan(200);
    seen.push(...res.body.data.map((p: { id: number }) => p.id));
    const next = res.body.pagination.next_cursor as string | null;
    if (next === null) return { seen, last: res };
    await onPage(seen.at(-1)!);
    res = await list(`cursor=${next}&${filters}`);
    expect(Object.keys(cursorPaginationSchema.parse(res.body.pagination))).toEqual([
      'per_page',
      'next_cursor',
    ]);
  }
}

describe('cursor walks', () => {
  it('walks 1,000 posts exactly once while another client creates and deletes posts', async () => {
    const extra: number[] = [];
    const churn = async (lastSeen: number) => {
      // Another client, between every two pages: two new posts, one of them deleted again later,
      // and the post the cursor stands on deleted (its row keeps the position).
      const created = await Promise.all([
        createPost(h, bob, { category_id: category }),
        createPost(h, bob, { category_id: category }),
      ]);
      extra.push(...created.map((p) => p.id));
      const deleted = await Promise.all(
        [extra.shift()!, lastSeen].map((id) => h.call(h.admin, 'DELETE', `/posts/${id}`)),
      );
      expect(deleted.map((res) => res.status)).toEqual([200, 200]);
    };
    const { seen } = await walk(churn);
    const originalsSeen = seen.filter((id) => originals.includes(id));
    expect(originalsSeen).toEqual(originals);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);

  it('starts from a page answer, whose next_cursor continues right after it', async () => {
    const page = await list(`page=1&limit=100&category=${category}`);
    expect(timeListEnvelope(postListItem).safeParse(page.body).success).toBe(true);
    const next = await list(`cursor=${page.body.pagination.next_cursor}&limit=100`);
    // A cursor of a filtered list is refused without its filters: it belongs to that list only.
    expect(next.status).toBe(400);
    const same = await list(`cursor=${page.body.pagination.next_cursor}&limit=100&category=${category}`);
    expect(same.body.data[0].id).toBe((await list(`page=2&limit=100&category=${category}`)).body.data[0].id);
  });

  it('ends with next_cursor null and no rel="next" link on the last page', async () => {
    const { last } = await walk();
    expect(last.body.pagination.next_cursor).toBeNull();
    expect(last.headers.get('link') ?? '').not.toContain('rel="next"');
  }, 30_000);

  it('links the next cursor page with the filters and limit of the request', async () => {
    const first = await list(`limit=10&category=${category}`);
    const res = await list(
      `cursor=${first.body.pagination.next_cursor}&limit=10&category=${category}&junk=1`,
    );
    const link = res.headers.get('link')!;
    expect(link).toMatch(/^<[^>]+\?category=\d+&cursor=[A-Za-z0-9_-]+&limit=10>; rel="next"$/);
    expect(link).not.toContain('junk');
  });
});

describe('cursor errors', () => {
  const field = (res: { body: { details: { field: string } } }) => res.body.details.field;

  it('refuses page and cursor together, and a cursor with a sort that is not time-ordered', async () => {
    const { body } = await list(`limit=5&category=${category}`);
    const cursor = body.pagination.next_cursor;
    for (const query of [
      `page=2&cursor=${cursor}`,
      `sort=popular&cursor=${cursor}`,
      `sort=trending&cursor=${cursor}`,
    ]) {
      const res = await list(`${query}&category=${category}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(field(res)).toBe('cursor');
    }
  });

  it('refuses a malformed, tampered, foreign or oversized cursor with 400', async () => {
    const post = await createPost(h, alice, { category_id: category });
    await h.call(alice, 'POST', `/posts/${post.id}/comments`, { body: { content: 'one' } });
    await h.call(alice, 'POST', `/posts/${post.id}/comments`, { body: { content: 'two' } });
    const comments = await h.call(alice, 'GET', `/posts/${post.id}/comments?limit=1`);
    const foreign = comments.body.pagination.next_cursor as string;
    const forged = Buffer.from(
      '{"v":1,"l":"posts","s":"[null,null,null]","i":"1; drop table posts"}',
    ).toString('base64url');
    for (const cursor of ['%00', 'not-a-cursor', foreign, forged, 'A'.repeat(201), '']) {
      const res = await list(`cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(field(res)).toBe('cursor');
    }
  });

  it('walks the comments of a post by cursor, newest or oldest first', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const ids: number[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        (await h.call(bob, 'POST', `/posts/${post.id}/comments`, { body: { content: `c${i}` } })).body.data
          .id,
      );
    for (const [sort, expected] of [
      ['oldest', ids],
      ['newest', [...ids].reverse()],
    ] as const) {
      const seen: number[] = [];
      let res = await h.call(alice, 'GET', `/posts/${post.id}/comments?sort=${sort}&limit=3`);
      for (;;) {
        seen.push(...res.body.data.map((c: { id: number }) => c.id));
        const next = res.body.pagination.next_cursor;
        if (!next) break;
        res = await h.call(alice, 'GET', `/posts/${post.id}/comments?sort=${sort}&limit=3&cursor=${next}`);
        expect(res.status).toBe(200);
      }
      expect(seen).toEqual(expected);
    }
  });
});
