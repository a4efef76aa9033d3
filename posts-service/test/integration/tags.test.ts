import { listEnvelope, tagSchema } from '@community/contracts';
import { alice, bob, createPost, startWithCategory } from '../support/fixtures';
import type { PostsHarness } from '../support/posts-harness';

// DESIGN.md §11: GET /tags — the tags of live posts, counts kept on create, edit and delete.

let h: PostsHarness;
let category: number;
beforeAll(async () => ({ h, category } = await startWithCategory('tags', 'Tagged')));
afterAll(() => h.stop());

const tagged = (tags: string[], as = alice) => createPost(h, as, { category_id: category, tags });

async function tags(query = '') {
  const res = await h.call(bob, 'GET', `/tags${query}`);
  expect(res.status).toBe(200);
  return listEnvelope(tagSchema).parse(res.body);
}
const counts = async (query = '') =>
  Object.fromEntries((await tags(query)).data.map((t) => [t.name, t.post_count]));

describe('GET /tags', () => {
  it('counts live posts per tag through create, edit and delete', async () => {
    const first = await tagged(['Kiwi', 'lime']);
    await tagged(['kiwi']);
    expect(await counts('?q=ki')).toEqual({ kiwi: 2 });
    expect(await counts('?q=li')).toEqual({ lime: 1 });

    const edit = await h.call(alice, 'PUT', `/posts/${first.id}`, { body: { tags: ['lime', 'lemon'] } });
    expect(edit.status).toBe(200);
    expect(await counts('?q=l')).toEqual({ lime: 1, lemon: 1 });
    expect(await counts('?q=ki')).toEqual({ kiwi: 1 });

    expect((await h.call(alice, 'DELETE', `/posts/${first.id}`)).status).toBe(200);
    // A tag no live post carries is not listed.
    expect(await counts('?q=l')).toEqual({});
    expect(await counts('?q=kiwi')).toEqual({ kiwi: 1 });
  });

  it('sorts by use or by name, pages, and narrows by a case-insensitive prefix', async () => {
    await tagged(['zz-b', 'zz-a']);
    await tagged(['zz-b']);
    await tagged(['zz-c', 'zz-b']);
    const popular = await tags('?q=ZZ');
    expect(popular.data).toEqual([
      { name: 'zz-b', post_count: 3 },
      { name: 'zz-a', post_count: 1 },
      { name: 'zz-c', post_count: 1 },
    ]);
    expect((await tags('?q=zz&sort=name')).data.map((t) => t.name)).toEqual(['zz-a', 'zz-b', 'zz-c']);
    const paged = await tags('?q=zz&sort=name&limit=2&page=2');
    expect([paged.data.map((t) => t.name), paged.pagination.total_items]).toEqual([['zz-c'], 3]);
  });

  it('keeps counts exact under parallel writes sharing tags', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        tagged(i % 2 ? ['par-x', 'par-y'] : ['par-y', 'par-x'], i % 3 ? alice : bob),
      ),
    );
    expect(await counts('?q=par')).toEqual({ 'par-x': 20, 'par-y': 20 });
  });

  // An edit that adds one tag and drops another, beside one doing the opposite: counted in two
  // steps (the adds, then the drops), each held a tag the other wanted next, and one edit deadlocked.
  it('keeps counts exact under parallel edits that swap tags', async () => {
    const posts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => tagged([i % 2 ? 'swap-x' : 'swap-y'], i % 3 ? alice : bob)),
    );
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(
        posts.map((post, i) =>
          h.call(i % 3 ? alice : bob, 'PUT', `/posts/${post.id}`, {
            body: { tags: [(i + round) % 2 ? 'swap-y' : 'swap-x'] },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(posts.map(() => 200));
    }
    expect(await counts('?q=swap')).toEqual({ 'swap-x': 6, 'swap-y': 6 });
  });

  it('refuses a prefix that is no tag and an unknown sort', async () => {
    for (const query of ['?q=', '?q=a%25', '?q=a_b', `?q=${'a'.repeat(33)}`, '?sort=recent']) {
      const res = await h.call(bob, 'GET', `/tags${query}`);
      expect([query, res.status, res.body.error]).toEqual([query, 400, 'validation_error']);
    }
  });
});
