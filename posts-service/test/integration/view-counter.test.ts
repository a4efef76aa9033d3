import { createLogger } from '@community/logging';
import { waitFor } from '@community/test-harness';
import { createDb, type Sql } from '@community/db';
import { findLivePost, findLivePostAsSeen } from '../../src/db/posts.repository';
import { visibleIn } from '../../src/db/snapshot';
import { ViewCounter } from '../../src/domain/posts/view-counter';
import { alice, createCategory, createPost } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// A post read adds the views not in its row yet. It used to wait for a flush under way (10–20 ms
// of a flush's UPDATE, once a second: the tail of bench:gateway); now it never waits, and still
// counts every view exactly once, before, during and after a flush.

const logger = createLogger({ service: 'view-counter-test', level: 'silent' });
let h: PostsHarness;
/** The counter's and the reads' own pool: the harness's two connections hold the row locks. */
let db: Sql;
let postId: number;
beforeAll(async () => {
  h = await startPostsService('view-counter');
  db = createDb(h.config.DATABASE_URL, { schema: 'posts', max: 4 });
  const category = (await createCategory(h, 'Viewed')).id;
  postId = (await createPost(h, alice, { category_id: category })).id;
});
afterAll(async () => {
  await db.end();
  await h.stop();
});

/** Holds the post's row lock in a transaction of its own until `release()`: a flush then waits. */
async function holdRow(sql: Sql, id: number) {
  let release = () => {};
  let locked = () => {};
  const held = new Promise<void>((resolve) => (locked = resolve));
  const done = sql.begin(async (tx) => {
    await tx`select 1 from posts where id = ${id} for update`;
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await held;
  return { release: () => (release(), done) };
}

const stored = async (id: number) =>
  (await h.sql<{ views: number }[]>`select views from posts where id = ${id}`)[0]!.views;

it('counts every view once while a flush waits, without waiting for it', async () => {
  const views = new ViewCounter(db, logger, 60_000);
  const read = async () => (await views.counted(postId, () => findLivePostAsSeen(db, postId)))!.views;
  const base = await stored(postId);
  for (let i = 0; i < 5; i++) views.record(postId);
  expect(await read()).toBe(base + 5);

  const lock = await holdRow(h.sql, postId);
  let flushed = false;
  const flushing = views.flush().then(() => (flushed = true));
  const waiting = () =>
    h.sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
  await waitFor(async () => (await waiting()).length > 0, { what: 'the flush to wait for the row' });
  views.record(postId);
  // The flush holds its five in a transaction that cannot commit yet; the read is answered anyway.
  expect(await read()).toBe(base + 6);
  expect(flushed).toBe(false);
  expect(await stored(postId)).toBe(base);

  await lock.release();
  await flushing;
  expect(await stored(postId)).toBe(base + 5);
  expect(await read()).toBe(base + 6);
});

it('reads again when a flush finishes during the read', async () => {
  const views = new ViewCounter(db, logger, 60_000);
  const base = await stored(postId);
  views.record(postId);
  views.record(postId);
  const lock = await holdRow(h.sql, postId);
  const flushing = views.flush();
  let reads = 0;
  const row = await views.counted(postId, async () => {
    reads++;
    // The first read's snapshot is taken before the flush commits; the flush finishes before it returns.
    const seen = await findLivePostAsSeen(db, postId);
    if (reads === 1) {
      await lock.release();
      await flushing;
    }
    return seen;
  });
  expect(row!.views).toBe(base + 2);
  expect(reads).toBe(2);
});

it('tells what a snapshot sees as PostgreSQL does', async () => {
  let finish = () => {};
  let xid = 0n;
  let started = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  const open = h.sql.begin(async (tx) => {
    xid = BigInt((await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`)[0]!.xid);
    started();
    await new Promise<void>((resolve) => (finish = resolve));
  });
  await running;
  const snapshot = async () =>
    (
      await h.sql<{ s: string; v: boolean }[]>`
      select pg_current_snapshot()::text as s, pg_visible_in_snapshot(${String(xid)}::xid8, pg_current_snapshot()) as v`
    )[0]!;
  const during = await snapshot();
  expect([visibleIn(xid, during.s), during.v]).toEqual([false, false]);
  finish();
  await open;
  const after = await snapshot();
  expect([visibleIn(xid, after.s), after.v]).toEqual([true, true]);
  expect(visibleIn(xid, during.s)).toBe(false);
  expect(visibleIn(xid + 1000n, after.s)).toBe(false);
});

// The hot read is written out flat (no fragments, see its comment): it must stay the shared read.
it('reads the post exactly as findLivePost does, with the snapshot beside it', async () => {
  const { snapshot, ...row } = (await findLivePostAsSeen(db, postId))!;
  expect(row).toEqual(await findLivePost(db, postId));
  expect(snapshot).toMatch(/^\d+:\d+:/);
  await db`update posts set deleted_at = now() where id = ${postId}`;
  try {
    expect(await findLivePostAsSeen(db, postId)).toBeNull();
  } finally {
    await db`update posts set deleted_at = null where id = ${postId}`;
  }
});
