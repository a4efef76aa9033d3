import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { signIdentity } from '@community/http-kit';
import { actor } from '@community/test-harness';
import { exportedPostSchema } from '@community/contracts';
import { createCategory } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §20: the export of an account with 10,000 posts streams from a cursor; the service
// never holds them all (here 10,000 × 10 KB: 100 MB of content).

// What the heap retains, garbage collected first (the flag lets this process call gc()).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const retained = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('export');
});
afterAll(() => h.stop());

const writer = actor(4242);

it('streams 10,000 posts of 10 KB with its heap bounded, each post once and in order', async () => {
  const category = (await createCategory(h)).id;
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id)
    select 'Post ' || n, 'post-' || n, repeat('x', 10000), ${writer.userId}, ${category}
    from generate_series(1, 10000) n`;
  const before = retained();
  let peak = before;
  let sampledAt = 0;
  const path = '/internal/export/posts';
  const res = await fetch(`${h.url}${path}`, {
    headers: signIdentity(h.config.INTERNAL_TOKEN, { method: 'GET', url: path, actor: writer }),
  });
  expect([res.status, res.headers.get('etag')]).toEqual([200, null]);
  let bytes = 0;
  let ids: number[] = [];
  let tail = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    // Only the ids are kept: the test must not hold the document either.
    const text = tail + Buffer.from(chunk).toString('utf8');
    ids = ids.concat([...text.matchAll(/\{"id":(\d+),/g)].map((m) => Number(m[1])));
    tail = text.slice(-40);
    if (bytes - sampledAt > 10_000_000) {
      sampledAt = bytes;
      peak = Math.max(peak, retained());
    }
  }
  expect(bytes).toBeGreaterThan(100_000_000);
  expect(new Set(ids).size).toBe(10_000);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(peak - before).toBeLessThan(30_000_000);
}, 120_000);

it('serves each post in the export shape', async () => {
  const path = '/internal/export/posts';
  const one = actor(4343);
  const category = (await createCategory(h)).id;
  await h.call(one, 'POST', '/posts', { body: { title: 'Mine', content: 'text', category_id: category } });
  const res = await fetch(`${h.url}${path}`, {
    headers: signIdentity(h.config.INTERNAL_TOKEN, { method: 'GET', url: path, actor: one }),
  });
  const posts = exportedPostSchema.array().parse(await res.json());
  expect(posts.map((p) => p.title)).toEqual(['Mine']);
});
