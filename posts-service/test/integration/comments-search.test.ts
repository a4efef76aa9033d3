import { commentListEntry, cursorPaginationSchema, SEARCH_CAP, timeListEnvelope } from '@community/contracts';
import { alice, bob, createPost, startWithCategory } from '../support/fixtures';
import type { PostsHarness } from '../support/posts-harness';

// DESIGN.md §11: GET /comments — across posts, by author and post, searchable like posts.

let h: PostsHarness;
let category: number;
beforeAll(async () => ({ h, category } = await startWithCategory('comments_search', 'Talk')));
afterAll(() => h.stop());

const comment = async (postId: number, content: string, as = alice) => {
  const res = await h.call(as, 'POST', `/posts/${postId}/comments`, { body: { content } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
};

async function list(query: string, status = 200) {
  const res = await h.call(bob, 'GET', `/comments?${query}`);
  expect([res.status, res.text]).toEqual([status, expect.any(String)]);
  if (status === 200) timeListEnvelope(commentListEntry).parse(res.body);
  return res;
}
const contents = async (query: string) =>
  (await list(query)).body.data.map((c: { content: string }) => c.content);

describe('GET /comments', () => {
  it("lists a user's comments across posts, newest first, and by post", async () => {
    const one = await createPost(h, alice, { category_id: category });
    const two = await createPost(h, bob, { category_id: category });
    await comment(one.id, 'first by bob', bob);
    await comment(two.id, 'second by bob', bob);
    await comment(two.id, 'by alice', alice);
    expect(await contents(`author=${bob.userId}`)).toEqual(['second by bob', 'first by bob']);
    expect(await contents(`post=${two.id}`)).toEqual(['by alice', 'second by bob']);
    expect(await contents(`post=${two.id}&author=${alice.userId}`)).toEqual(['by alice']);
  });

  it('searches with stemming and accents, best match first, with escaped highlights', async () => {
    const target = await createPost(h, alice, { category_id: category });
    await comment(target.id, 'The marmots were <b>running</b> & hiding');
    await comment(target.id, 'Marmot marmot marmot: a café de marmot');
    const found = await list('q=marmot%20run');
    expect(found.body.data.map((c: { content: string }) => c.content)).toEqual([
      'The marmots were <b>running</b> & hiding',
    ]);
    // PostgreSQL's fragment (it leaves out what its parser takes for tags), every match marked, and no
    // markup but the marks.
    const html: string = found.body.data[0].highlight.content;
    expect(html).toMatch(/<mark>marmots<\/mark> were .*<mark>running<\/mark>.* &amp; hiding$/);
    expect(html.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
    const ranked = await contents('q=marmot');
    expect(ranked[0]).toBe('Marmot marmot marmot: a café de marmot');
    expect(await contents('q=cafe%20marmot')).toEqual(['Marmot marmot marmot: a café de marmot']);
    expect((await list(`q=marmot&author=${bob.userId}`)).body.data).toEqual([]);
  });

  it('never shows a deleted comment, nor the comments of a deleted post', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const kept = await comment(post.id, 'wallaby kept');
    const removed = await comment(post.id, 'wallaby removed');
    expect((await h.call(alice, 'DELETE', `/comments/${removed.id}`)).status).toBe(200);
    expect(await contents('q=wallaby')).toEqual(['wallaby kept']);
    expect(await contents(`post=${post.id}`)).toEqual(['wallaby kept']);
    expect((await h.call(alice, 'DELETE', `/posts/${post.id}`)).status).toBe(200);
    expect(await contents('q=wallaby')).toEqual([]);
    expect(await contents(`post=${post.id}`)).toEqual([]);
    expect(kept.id).toBeGreaterThan(0);
  });

  it('walks by cursor without q, and refuses a cursor with q or bad bounds', async () => {
    const post = await createPost(h, alice, { category_id: category });
    for (let i = 0; i < 5; i++) await comment(post.id, `walk ${i}`);
    const first = await list(`post=${post.id}&limit=2`);
    const seen = first.body.data.map((c: { content: string }) => c.content);
    let cursor = first.body.pagination.next_cursor;
    while (cursor) {
      const next = await list(`post=${post.id}&limit=2&cursor=${cursor}`);
      cursorPaginationSchema.parse(next.body.pagination);
      seen.push(...next.body.data.map((c: { content: string }) => c.content));
      cursor = next.body.pagination.next_cursor;
    }
    expect(seen).toEqual(['walk 4', 'walk 3', 'walk 2', 'walk 1', 'walk 0']);
    for (const [query, field] of [
      [`q=walk&cursor=${first.body.pagination.next_cursor}`, 'cursor'],
      ['q=w', 'q'],
      [`q=${'x'.repeat(201)}`, 'q'],
      ['author=0', 'author'],
      ['post=abc', 'post'],
    ]) {
      const res = await list(query!, 400);
      expect([query, res.body.details.field]).toEqual([query, field]);
    }
  });

  it(`counts up to ${SEARCH_CAP} matching comments and serves those`, async () => {
    const { id } = await createPost(h, alice, { category_id: category });
    await h.sql`insert into comments (post_id, author_id, content)
                select ${id}, ${bob.userId}, 'a numbat sighting ' || i from generate_series(1, ${SEARCH_CAP + 1}) i`;
    const first = await list('q=numbat&limit=100');
    expect(first.body.pagination).toMatchObject({
      total_items: SEARCH_CAP,
      total_items_capped: true,
      total_pages: 10,
    });
    expect((await list('q=numbat&limit=100&page=10')).body.data).toHaveLength(100);
    expect((await list('q=numbat&limit=100&page=11')).body.data).toEqual([]);
    // Without q the list is not a search: every comment is counted.
    expect((await list(`post=${id}`)).body.pagination.total_items).toBe(SEARCH_CAP + 1);
  });
});
