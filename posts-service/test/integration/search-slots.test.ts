import { actor, type ApiResponse } from '@community/test-harness';
import { alice, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// A burst of searches cannot take every connection and core from the rest of the API: one process
// runs SEARCH_CONCURRENCY of them at once, 8 per slot wait at most a second, and one caller has at
// most 4 running and waiting. The rest are refused at once with a 429 to retry after a second.
// Searches are held here by a lock on their table, so what runs and what waits is certain.

let h: PostsHarness;
beforeAll(async () => {
  // The search let through waits on the lock for the whole test (3 s), longer than the 1 s a search
  // may take by default: it must not time out meanwhile.
  h = await startPostsService('search_slots', {
    env: { SEARCH_CONCURRENCY: '1', SEARCH_TIMEOUT_MS: '10000' },
  });
  const category = (await createCategory(h, 'Slots')).id;
  await createPost(h, alice, { title: 'A forum thread', content: 'forum talk', category_id: category });
});
afterAll(() => h.stop());

/** Holds `table` locked until the returned function is called: every search on it waits. */
async function lock(table: 'posts' | 'comments'): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const tx = h.sql.begin(async (sql) => {
    await sql.unsafe(`lock table ${table} in access exclusive mode`);
    locked();
    await released;
  });
  await held;
  return async () => {
    release();
    await tx;
  };
}

/** Statements of the service blocked on the lock. */
async function blocked(): Promise<number> {
  const [row] = await h.sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`;
  return row!.n;
}

/** Sends a request and notes how long its answer took. */
async function timed(send: () => Promise<ApiResponse>) {
  const started = performance.now();
  const res = await send();
  return { res, ms: performance.now() - started };
}

type Timed = Awaited<ReturnType<typeof timed>>;

const search = (who: number, path = '/posts?q=forum') => timed(() => h.call(actor(who), 'GET', path));

/** The answers that came within 3 s (null: still waiting), well past every queued search's second. */
const within3s = (answers: Promise<Timed>[]) =>
  Promise.all(
    answers.map((answer) =>
      Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), 3_000))]),
    ),
  );

function expectRefused(res: ApiResponse, message: RegExp) {
  expect([res.status, res.body.error, res.body.retry_after, res.headers.get('retry-after')]).toEqual([
    429,
    'rate_limit_exceeded',
    1,
    '1',
  ]);
  expect(res.body.message).toMatch(message);
}

const BUSY = /^too many searches are running; retry in a second$/;

it('runs one search at a time here, queues 8, refuses the rest at once and the queued after a second', async () => {
  const release = await lock('posts');
  try {
    const answers = Array.from({ length: 20 }, (_, i) => search(300 + i));
    const settled = await within3s(answers);
    const atOnce = settled.filter((a) => a && a.ms < 1_000);
    const afterWaiting = settled.filter((a) => a && a.ms >= 1_000);
    const running = settled.findIndex((a) => !a);
    expect([atOnce.length, afterWaiting.length, settled.filter((a) => !a).length]).toEqual([11, 8, 1]);
    for (const a of [...atOnce, ...afterWaiting]) expectRefused(a!.res, BUSY);
    // The one that runs waits on the lock in PostgreSQL with its two statements (its page and its
    // count, side by side); none of the others reached the database.
    expect(await blocked()).toBe(2);
    await release();
    expect((await answers[running]!).res.status).toBe(200);
  } finally {
    await release();
  }
  const after = await search(400);
  expect([after.res.status, after.res.body.data[0].title]).toEqual([200, 'A forum thread']);
});

it('gives one caller at most 4 searches running and waiting, posts and comments alike', async () => {
  for (const [table, path] of [
    ['posts', '/posts?q=forum'],
    ['comments', '/comments?q=forum'],
  ] as const) {
    const release = await lock(table);
    try {
      const mine = Array.from({ length: 6 }, () => search(alice.userId, path));
      const settled = await within3s(mine);
      // 1 runs, 3 wait (and give up after a second), 2 are refused at once.
      const atOnce = settled.filter((a) => a && a.ms < 1_000);
      const afterWaiting = settled.filter((a) => a && a.ms >= 1_000);
      expect([atOnce.length, afterWaiting.length, settled.filter((a) => !a).length]).toEqual([2, 3, 1]);
      for (const a of atOnce) expectRefused(a!.res, /^too many of your searches are running at once; retry/);
      for (const a of afterWaiting) expectRefused(a!.res, BUSY);
      await release();
      expect((await mine[settled.findIndex((a) => !a)]!).res.status).toBe(200);
    } finally {
      await release();
    }
  }
});
