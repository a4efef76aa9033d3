import { actor, type ApiResponse } from '@community/test-harness';
import { startUsersService, type UsersHarness } from '../support/users-harness';

// User lookups (GET /users?q=) run SEARCH_CONCURRENCY at a time per process, like searches in
// posts-service: one caller has at most 4 running and waiting; the rest are refused at once with a
// 429, so a burst of lookups cannot take every connection from logins and keys. A lock on the users
// table holds them, so what runs and what waits is certain.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('lookup_slots', { SEARCH_CONCURRENCY: '1' });
});
afterAll(() => h.stop());

it('gives one caller at most 4 lookups running and waiting; the rest are 429s at once', async () => {
  const reader = actor(7, 'member', ['read']);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const tx = h.sql.begin(async (sql) => {
    await sql`lock table users in access exclusive mode`;
    locked();
    await released;
  });
  await held;
  try {
    const lookups = Array.from({ length: 6 }, async () => {
      const started = performance.now();
      const res: ApiResponse = await h.call(reader, 'GET', '/users?q=ka');
      return { res, ms: performance.now() - started };
    });
    const settled = await Promise.all(
      lookups.map((l) => Promise.race([l, new Promise<null>((r) => setTimeout(() => r(null), 3_000))])),
    );
    // 1 runs (held by the lock), 3 wait and give up after a second, 2 are refused at once.
    const atOnce = settled.filter((a) => a && a.ms < 1_000);
    const afterWaiting = settled.filter((a) => a && a.ms >= 1_000);
    expect([atOnce.length, afterWaiting.length, settled.filter((a) => !a).length]).toEqual([2, 3, 1]);
    for (const { res } of [...atOnce, ...afterWaiting].map((a) => a!)) {
      expect([res.status, res.body.error, res.headers.get('retry-after')]).toEqual([
        429,
        'rate_limit_exceeded',
        '1',
      ]);
    }
    for (const a of atOnce)
      expect(a!.res.body.message).toMatch(/^too many of your lookups are running at once/);
    for (const a of afterWaiting)
      expect(a!.res.body.message).toBe('too many lookups are running; retry in a second');
    release();
    await tx;
    expect((await lookups[settled.findIndex((a) => !a)]!).res.status).toBe(200);
  } finally {
    release();
    await tx;
  }
  // A listing without q is not a lookup: it never waits for a slot.
  expect((await h.call(reader, 'GET', '/users?limit=1')).status).toBe(200);
});
