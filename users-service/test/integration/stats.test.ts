import type { EventEnvelope } from '@community/events';
import { publishEvents, testEnvelope as envelope, waitFor } from '@community/test-harness';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('stats');
});
afterAll(() => h.stop());

const publish = (events: EventEnvelope<unknown>[]) => publishEvents(h.exchange, events);

async function profile(userId: number) {
  const { as } = await registerMember(h);
  return (await h.call(as, 'GET', `/users/${userId}`)).body.data;
}

it('keeps stats, reputation and badges from content events', async () => {
  const { user } = await registerMember(h);
  const author = user.id;
  const events = [
    envelope('post.created', { id: 1, title: 't', author_id: author }),
    envelope('post.created', { id: 2, title: 't', author_id: author }),
    ...Array.from({ length: 10 }, (_, i) =>
      envelope('comment.created', { id: 100 + i, post_id: 1, author_id: author, parent_id: null }),
    ),
    ...Array.from({ length: 11 }, (_, i) =>
      envelope('post.liked', { post_id: 1, user_id: 500 + i, author_id: author }),
    ),
    envelope('post.unliked', { post_id: 1, user_id: 500, author_id: author }),
    envelope('comment.deleted', { id: 100, post_id: 1, author_id: author }),
    envelope('post.deleted', { id: 2, author_id: author }),
  ];
  await publish(events);
  const shown = await waitFor(
    async () => {
      const p = await profile(author);
      return p.stats.posts === 1 && p.stats.comments === 9 && p.stats.likes_received === 10 ? p : undefined;
    },
    { what: 'stats after 26 events', timeoutMs: 15_000 },
  );
  // +10 per like received, +2 per post, +1 per comment
  expect(shown.reputation).toBe(10 * 10 + 2 * 1 + 9);
  // badges stay once earned, even when a count later drops below the rule
  expect(shown.badges).toEqual([
    { id: 1, name: 'First Post', icon: '📝' },
    { id: 2, name: 'Conversationalist', icon: '💬' },
    { id: 3, name: 'Liked', icon: '⭐' },
  ]);
});

it('never double-counts a replayed event', async () => {
  const { user } = await registerMember(h);
  const liked = envelope('post.liked', { post_id: 9, user_id: 1, author_id: user.id });
  const created = envelope('post.created', { id: 9, title: 't', author_id: user.id });
  await publish([liked, created, liked, created, liked]);
  const marker = envelope('comment.created', { id: 900, post_id: 9, author_id: user.id, parent_id: null });
  await publish([marker]);
  const shown = await waitFor(
    async () => {
      const p = await profile(user.id);
      return p.stats.comments === 1 ? p : undefined;
    },
    { what: 'the marker event' },
  );
  expect(shown.stats).toEqual({ posts: 1, comments: 1, likes_received: 1 });
  expect(shown.reputation).toBe(13);
});

it('never lets a count or reputation go below zero', async () => {
  const { user } = await registerMember(h);
  await publish([
    envelope('post.unliked', { post_id: 1, user_id: 2, author_id: user.id }),
    envelope('post.deleted', { id: 1, author_id: user.id }),
    envelope('comment.created', { id: 77, post_id: 1, author_id: user.id, parent_id: null }),
  ]);
  const shown = await waitFor(
    async () => {
      const p = await profile(user.id);
      return p.stats.comments === 1 ? p : undefined;
    },
    { what: 'events applied' },
  );
  expect(shown.stats).toEqual({ posts: 0, comments: 1, likes_received: 0 });
  expect(shown.reputation).toBe(1);
});

it('converges to exact counts when an unlike arrives before its like', async () => {
  const { user } = await registerMember(h);
  await publish([envelope('post.unliked', { post_id: 5, user_id: 8, author_id: user.id })]);
  await waitFor(
    async () =>
      (await h.sql`select likes_received from users where id = ${user.id}`)[0]?.likesReceived === -1,
    {
      what: 'the early unlike',
    },
  );
  expect((await profile(user.id)).stats.likes_received).toBe(0);
  await publish([
    envelope('post.liked', { post_id: 5, user_id: 8, author_id: user.id }),
    envelope('post.liked', { post_id: 6, user_id: 8, author_id: user.id }),
  ]);
  const shown = await waitFor(
    async () => {
      const p = await profile(user.id);
      return p.stats.likes_received === 1 ? p : undefined;
    },
    { what: 'converged likes' },
  );
  expect(shown.reputation).toBe(10);
});

it('counts a like towards badges once per liker, however often it is repeated', async () => {
  const { user } = await registerMember(h);
  const cycle = Array.from({ length: 12 }, () => [
    envelope('post.liked', { post_id: 3, user_id: 4, author_id: user.id }),
    envelope('post.unliked', { post_id: 3, user_id: 4, author_id: user.id }),
  ]).flat();
  await publish(cycle);
  await waitFor(
    async () =>
      (
        await h.sql`select count(*)::int as n from processed_events where event_id = any(${cycle.map((e) => e.id)})`
      )[0]!.n === cycle.length,
    {
      what: 'all like cycles applied',
      timeoutMs: 15_000,
    },
  );
  const [row] = await h.sql`select likes_ever_received from users where id = ${user.id}`;
  expect(row?.likesEverReceived).toBe(1);
  expect((await profile(user.id)).badges).toEqual([]);
});
