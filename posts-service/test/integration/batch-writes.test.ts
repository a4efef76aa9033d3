import { addViews } from '../../src/db/posts.repository';
import { alice, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// Counters flushed in batches (views, here) update many rows in one statement. Two replicas
// flushing the same posts in different orders each held a row the other wanted next: a deadlock,
// and one batch of counts lost. Rows are locked in id order now, whatever order a batch has.

let h: PostsHarness;
let ids: number[];
beforeAll(async () => {
  h = await startPostsService('batch-writes');
  const category = (await createCategory(h, 'Counted')).id;
  ids = [];
  for (let i = 0; i < 40; i++) ids.push((await createPost(h, alice, { category_id: category })).id);
});
afterAll(() => h.stop());

it('adds every view of batches flushed at once over the same posts in opposite orders', async () => {
  const forwards = new Map(ids.map((id) => [id, 1]));
  const backwards = new Map([...ids].reverse().map((id) => [id, 1]));
  for (let round = 0; round < 10; round++)
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => addViews(h.sql, i % 2 ? backwards : forwards, () => {})),
    );
  const rows = await h.sql<{ views: number }[]>`select views from posts where id = any(${ids}::int[])`;
  expect(rows.map((row) => row.views)).toEqual(ids.map(() => 40));
});
