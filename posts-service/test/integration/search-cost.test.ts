import { actor } from '@community/test-harness';
import { alice, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §21 "Free is for polling, not for work": a search of more than 16 terms or 8 `or`
// branches is `400 query_too_complex`, decided from the text alone before any SQL or search slot.

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('search_cost');
  const category = (await createCategory(h, 'Costly')).id;
  await createPost(h, alice, {
    category_id: category,
    title: 'Wombat care',
    content:
      'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen',
  });
});
afterAll(() => h.stop());

/** 60 distinct words in 179 characters (q holds at most 200). */
const SIXTY = Array.from(
  { length: 60 },
  (_, i) => `${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`,
).join(' ');
const WORDS =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen';
const search = (path: string, q: string, as = alice) =>
  h.call(as, 'GET', `${path}?q=${encodeURIComponent(q)}`);

function expectTooComplex(res: Awaited<ReturnType<typeof search>>, terms: number, orBranches: number) {
  expect([res.status, res.body.error]).toEqual([400, 'query_too_complex']);
  expect(res.body.details).toEqual({ terms, max_terms: 16, or_branches: orBranches, max_or_branches: 8 });
}

it('refuses a 60-word search of posts and of comments with 400 query_too_complex, naming counts and limits', async () => {
  for (const path of ['/posts', '/comments']) expectTooComplex(await search(path, SIXTY), 60, 0);
});

it('counts the words of a phrase and an excluded word as terms: 17 is one too many', async () => {
  const q = `"one two three four five" six seven eight nine ten eleven twelve thirteen fourteen fifteen -sixteen wombat`;
  expectTooComplex(await search('/posts', q), 17, 0);
});

it('refuses nine or-branches of phrases, and answers eight', async () => {
  const phrases = Array.from({ length: 9 }, (_, i) => `"w${i}a w${i}b"`);
  expectTooComplex(await search('/posts', phrases.join(' or ')), 18, 9);
  expectTooComplex(await search('/comments', phrases.map((_, i) => `w${i}`).join(' OR ')), 9, 9);
  const eight = Array.from({ length: 8 }, (_, i) => `w${i}`).join(' or ');
  expect((await search('/posts', eight)).status).toBe(200);
});

it('answers a search of exactly 16 terms', async () => {
  const res = await search('/posts', WORDS);
  expect(res.status).toBe(200);
  expect(res.body.data.map((p: { title: string }) => p.title)).toEqual(['Wombat care']);
  // `or` between words is an operator, not a term; inside a phrase it is a word.
  expect((await search('/posts', `${WORDS} or wombat`)).status).toBe(400);
  expect((await search('/posts', 'eleven or twelve')).status).toBe(200);
});

it('refuses a flood of costly searches before they take a search slot: nobody waits behind them', async () => {
  // One caller may have 4 searches in flight: a check inside the slots would answer most of these 429.
  const flood = await Promise.all(Array.from({ length: 40 }, () => search('/posts', SIXTY, actor(777))));
  expect(new Set(flood.map((res) => `${res.status} ${res.body.error}`))).toEqual(
    new Set(['400 query_too_complex']),
  );
  expect((await search('/posts', 'wombat', actor(778))).status).toBe(200);
});
