import { actor, waitFor } from '@community/test-harness';
import { flagSchema, listEnvelope, moderationActionSchema, timeListEnvelope } from '@community/contracts';
import { alice, createPost, moderator, startWithCategory } from '../support/fixtures';
import { onModerationAction } from '../../src/domain/moderation/actions';
import type { PostsHarness } from '../support/posts-harness';

// DESIGN.md §12: flags, hiding at three, the queue and its decisions, the audit log. The members here
// are minted on the spot: the harness runs FLAG_MIN_ACCOUNT_AGE_HOURS=0, so their flags count at once
// (flag-standing.test.ts: the default of 24 hours, the hourly cap, staff content).

let h: PostsHarness;
let category: number;
beforeAll(async () => ({ h, category } = await startWithCategory('moderation', 'Moderated')));
afterAll(() => h.stop());

const carol = actor(301);
const dave = actor(302);
const erin = actor(303);
const frank = actor(304);
const admin = actor(1, 'admin', ['read', 'write', 'moderate', 'admin']);

const flag = (as: ReturnType<typeof actor>, path: string, body: object = { reason: 'spam' }) =>
  h.call(as, 'POST', `${path}/flags`, { body });

async function flagged(path: string) {
  for (const as of [carol, dave, erin]) expect((await flag(as, path)).status).toBe(201);
}

const categoryCount = async () =>
  (await h.call(alice, 'GET', `/categories/${category}`)).body.data.post_count as number;
const tagCount = async (tag: string) =>
  ((await h.call(alice, 'GET', `/tags?q=${tag}`)).body.data as { name: string; post_count: number }[]).find(
    (t) => t.name === tag,
  )?.post_count ?? 0;
const openFlags = async () =>
  listEnvelope(flagSchema).parse((await h.call(moderator, 'GET', '/flags?limit=100')).body).data;

describe('flags', () => {
  it('three members hide a post from everyone but its author and moderators; dismissing shows it again', async () => {
    const post = await createPost(h, alice, {
      title: 'Buy cheap wombatfeed',
      category_id: category,
      tags: ['wf'],
    });
    const [countBefore, tagBefore] = [await categoryCount(), await tagCount('wf')];
    await flag(carol, `/posts/${post.id}`);
    await flag(dave, `/posts/${post.id}`);
    expect((await h.call(frank, 'GET', `/posts/${post.id}`)).status).toBe(200);
    const third = await flag(erin, `/posts/${post.id}`, { reason: 'abuse', note: '<b>bad</b>' });
    expect(third.status).toBe(201);
    expect(flagSchema.parse(third.body.data)).toMatchObject({
      target_type: 'post',
      target_id: post.id,
      reason: 'abuse',
      note: '<b>bad</b>',
      status: 'open',
    });

    expect((await h.call(frank, 'GET', `/posts/${post.id}`)).status).toBe(404);
    expect((await h.call(frank, 'GET', `/posts/${post.id}/comments`)).status).toBe(404);
    expect(
      (await h.call(frank, 'POST', `/posts/${post.id}/comments`, { body: { content: 'hi' } })).status,
    ).toBe(404);
    expect((await h.call(frank, 'POST', `/posts/${post.id}/like`)).status).toBe(404);
    for (const as of [alice, moderator, admin]) {
      const res = await h.call(as, 'GET', `/posts/${post.id}`);
      expect([res.status, res.body.data.is_hidden]).toEqual([200, true]);
    }
    const ids = async (query: string) =>
      ((await h.call(frank, 'GET', `/posts?${query}`)).body.data as { id: number }[]).map((p) => p.id);
    expect(await ids(`category=${category}&limit=100`)).not.toContain(post.id);
    expect(await ids('q=wombatfeed')).toEqual([]);
    expect(await ids('tag=wf')).toEqual([]);
    expect([await categoryCount(), await tagCount('wf')]).toEqual([countBefore - 1, tagBefore - 1]);
    // Hiding is no public event: only the internal moderation.action tells of it.
    const told = await h.sql<{ event: string }[]>`
      select event from outbox where payload->'data'->>'id' = ${String(post.id)}
        or payload->'data'->>'target_id' = ${String(post.id)} order by id`;
    expect(told.map((row) => row.event)).toEqual(['post.created', 'moderation.action']);

    const queued = (await openFlags()).filter((f) => f.target_id === post.id && f.target_type === 'post');
    expect(queued).toHaveLength(3);
    const decided = await h.call(moderator, 'PUT', `/flags/${queued[0]!.id}`, {
      body: { status: 'dismissed' },
    });
    expect([decided.status, decided.body.data.status]).toEqual([200, 'dismissed']);
    expect((await openFlags()).filter((f) => f.target_id === post.id && f.target_type === 'post')).toEqual(
      [],
    );
    const shown = await h.call(frank, 'GET', `/posts/${post.id}`);
    expect([shown.status, shown.body.data.is_hidden]).toEqual([200, undefined]);
    expect(await ids('q=wombatfeed')).toEqual([post.id]);
    expect([await categoryCount(), await tagCount('wf')]).toEqual([countBefore, tagBefore]);
    // Decided flags leave room for new ones.
    expect((await flag(carol, `/posts/${post.id}`)).status).toBe(201);
  });

  it('hides a comment from its post and its replies count', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const made = await h.call(carol, 'POST', `/posts/${post.id}/comments`, { body: { content: 'spammy' } });
    const id = made.body.data.id as number;
    const replies = async () => (await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.replies as number;
    expect(await replies()).toBe(1);
    for (const as of [alice, dave, erin]) expect((await flag(as, `/comments/${id}`)).status).toBe(201);
    expect(await replies()).toBe(0);
    expect((await h.call(frank, 'GET', `/comments/${id}`)).status).toBe(404);
    expect((await h.call(carol, 'GET', `/comments/${id}`)).body.data.is_hidden).toBe(true);
    expect((await h.call(frank, 'GET', `/posts/${post.id}/comments`)).body.data).toEqual([]);
    expect(
      ((await h.call(frank, 'GET', '/comments?limit=100')).body.data as { id: number }[]).map((c) => c.id),
    ).not.toContain(id);
    // Deleting it while hidden does not take it from the count twice.
    expect((await h.call(carol, 'DELETE', `/comments/${id}`)).status).toBe(200);
    expect(await replies()).toBe(0);
  });

  it('refuses a second open flag (409), your own content (403), and what does not exist (404)', async () => {
    const post = await createPost(h, alice, { category_id: category });
    expect((await flag(carol, `/posts/${post.id}`)).status).toBe(201);
    const again = await flag(carol, `/posts/${post.id}`, { reason: 'other' });
    expect([again.status, again.body.error]).toEqual([409, 'conflict']);
    const own = await flag(alice, `/posts/${post.id}`);
    expect([own.status, own.body.error]).toEqual([403, 'forbidden']);
    expect((await flag(carol, '/posts/999999')).status).toBe(404);
    expect((await flag(carol, '/comments/999999')).status).toBe(404);
    for (const body of [
      {},
      { reason: 'boring' },
      { reason: 'spam', note: 'x'.repeat(501) },
      { reason: 'spam', extra: 1 },
    ]) {
      const res = await flag(dave, `/posts/${post.id}`, body);
      expect([JSON.stringify(body).slice(0, 40), res.status, res.body.error]).toEqual([
        JSON.stringify(body).slice(0, 40),
        400,
        'validation_error',
      ]);
    }
    expect((await h.call(carol, 'GET', '/flags')).status).toBe(403);
    expect((await h.call(carol, 'PUT', '/flags/1', { body: { status: 'resolved' } })).status).toBe(403);
    expect((await h.call(carol, 'GET', '/moderation/actions')).status).toBe(403);
  });

  it('flags once however often a keyed POST is retried (Idempotency-Key)', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const send = () =>
      h.call(frank, 'POST', `/posts/${post.id}/flags`, {
        body: { reason: 'other' },
        headers: { 'Idempotency-Key': `flag-${post.id}` },
      });
    const [first, again] = [await send(), await send()];
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([
      201,
      201,
      'true',
    ]);
    expect(again.body).toEqual(first.body);
    expect((await openFlags()).filter((f) => f.target_id === post.id)).toHaveLength(1);
  });

  it('under a burst of flags hides once, and of decisions on one item one wins and the rest are 409', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const before = await categoryCount();
    const members = [401, 402, 403, 404, 405, 406].map((id) => actor(id));
    const answers = await Promise.all(members.map((as) => flag(as, `/posts/${post.id}`)));
    // The third flag hides the post: from then on it is a 404 for the members still flagging.
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 404, 404, 404]);
    expect(await categoryCount()).toBe(before - 1);
    const ids = (await openFlags()).filter((f) => f.target_id === post.id).map((f) => f.id);
    const decisions = await Promise.all(
      ids
        .slice(0, 3)
        .map((id) =>
          h.call(moderator, 'PUT', `/flags/${id}`, { body: { status: 'resolved', action: 'unhide' } }),
        ),
    );
    expect(decisions.map((res) => res.status).sort()).toEqual([200, 409, 409]);
    expect(await categoryCount()).toBe(before);
    const logged = await waitFor(
      async () => {
        const log = (await h.call(moderator, 'GET', '/moderation/actions?limit=100')).body.data as {
          action: string;
          target_id: number;
        }[];
        const mine = log.filter((a) => a.target_id === post.id);
        // The log is filled from events as they are consumed: a decision's acts can land in any order.
        const acts = ['hide', 'resolve_flags', 'unhide'];
        return acts.every((act) => mine.some((a) => a.action === act)) ? mine : undefined;
      },
      { what: 'the hide, the decision and the unhide in the log', timeoutMs: 5000 },
    );
    expect(logged.filter((a) => a.action === 'hide')).toHaveLength(1);
    expect(logged.filter((a) => a.action === 'resolve_flags')).toHaveLength(1);
  });

  it('a decision deletes as any delete does, and a dismissal takes no other action', async () => {
    const post = await createPost(h, alice, { category_id: category });
    expect((await flag(carol, `/posts/${post.id}`)).status).toBe(201);
    const { id } = (await openFlags()).find((f) => f.target_id === post.id)!;
    const bad = await h.call(moderator, 'PUT', `/flags/${id}`, {
      body: { status: 'dismissed', action: 'delete' },
    });
    expect([bad.status, bad.body.details.field]).toEqual([400, 'action']);
    const done = await h.call(moderator, 'PUT', `/flags/${id}`, {
      body: { status: 'resolved', action: 'delete', reason: 'ads' },
    });
    expect(done.status).toBe(200);
    expect((await h.call(alice, 'GET', `/posts/${post.id}`)).status).toBe(404);
    const [deleted] = await h.sql<{ n: number }[]>`
      select count(*)::int as n from outbox where event = 'post.deleted' and payload->'data'->>'id' = ${String(post.id)}`;
    expect(deleted!.n).toBe(1);
    const again = await h.call(moderator, 'PUT', `/flags/${id}`, { body: { status: 'resolved' } });
    expect([again.status, again.body.error]).toEqual([409, 'conflict']);
  });
});

describe('GET /moderation/actions', () => {
  it('lists pin, lock, the automatic hide, the decision and the delete with actor and reason, newest first', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const target = { target_type: 'post', target_id: post.id };
    expect((await h.call(moderator, 'PUT', `/posts/${post.id}`, { body: { is_pinned: true } })).status).toBe(
      200,
    );
    expect((await h.call(moderator, 'PUT', `/posts/${post.id}`, { body: { is_locked: true } })).status).toBe(
      200,
    );
    await flagged(`/posts/${post.id}`);
    const { id } = (await openFlags()).find((f) => f.target_id === post.id)!;
    await h.call(moderator, 'PUT', `/flags/${id}`, {
      body: { status: 'resolved', action: 'delete', reason: 'ads' },
    });
    const expected = [
      { actor_id: moderator.userId, action: 'delete', reason: 'ads', ...target },
      { actor_id: moderator.userId, action: 'resolve_flags', reason: 'ads', ...target },
      { actor_id: null, action: 'hide', reason: '3 open flags: spam', ...target },
      { actor_id: moderator.userId, action: 'lock', reason: null, ...target },
      { actor_id: moderator.userId, action: 'pin', reason: null, ...target },
    ];
    const entries = await waitFor(
      async () => {
        const res = await h.call(admin, 'GET', '/moderation/actions?limit=100');
        const mine = timeListEnvelope(moderationActionSchema)
          .parse(res.body)
          .data.filter((a) => a.target_type === 'post' && a.target_id === post.id);
        return mine.length >= expected.length ? mine : undefined;
      },
      { what: 'five audit entries', timeoutMs: 5000 },
    );
    // Acts in one transaction share its instant; the log keeps the order they were made in.
    expect(entries.map(({ id: _id, created_at: _at, ...rest }) => rest)).toEqual(expected);
    // A cursor walks the same log.
    const first = await h.call(moderator, 'GET', '/moderation/actions?limit=2');
    expect(first.body.pagination.next_cursor).toEqual(expect.any(String));
    const next = await h.call(
      moderator,
      'GET',
      `/moderation/actions?limit=2&cursor=${first.body.pagination.next_cursor}`,
    );
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(2);
    // An author deleting their own post is no moderator act.
    const own = await createPost(h, alice, { category_id: category });
    expect((await h.call(alice, 'DELETE', `/posts/${own.id}`)).status).toBe(200);
    const [logged] = await h.sql<{ n: number }[]>`
      select count(*)::int as n from outbox where event = 'moderation.action' and payload->'data'->>'target_id' = ${String(own.id)}`;
    expect(logged!.n).toBe(0);
  });

  it('stores an event once however often it arrives, and users-service acts alike', async () => {
    const envelope = {
      id: 'evt_01JKX3M5W8Q2T7Y9Z4B6C8D0EF',
      event: 'moderation.action',
      timestamp: '2026-01-02T03:04:05Z',
      data: { actor_id: 2, action: 'suspend', target_type: 'user', target_id: 77, reason: 'spam' },
    };
    for (let i = 0; i < 2; i++) await h.sql.begin((tx) => onModerationAction(tx as never, envelope));
    const rows =
      await h.sql`select actor_id, action, target_type, target_id, reason from moderation_actions where event_id = ${envelope.id}`;
    expect(rows).toEqual([
      { actorId: 2, action: 'suspend', targetType: 'user', targetId: 77, reason: 'spam' },
    ]);
    // Append-only, even for the superuser the tests connect as.
    for (const change of [
      h.sql`update moderation_actions set reason = 'rewritten'`,
      h.sql`delete from moderation_actions`,
      h.sql`truncate moderation_actions`,
    ])
      await expect(change).rejects.toThrow('append-only');
  });
});
