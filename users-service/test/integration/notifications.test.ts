import { notificationSchema } from '@community/contracts';
import type { EventEnvelope } from '@community/events';
import { signIdentity } from '@community/http-kit';
import {
  actor,
  openEventStream,
  publishEvents,
  testEnvelope as envelope,
  waitFor,
  type OpenedStream,
} from '@community/test-harness';
import { start, type UsersService } from '../../src/start';
import { content, type Member } from '../support/content-events';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §13 in users-service: notifications from content events, the three endpoints, the stream.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('notifications', { NOTIFICATION_HEARTBEAT_SECONDS: '1' });
});
afterAll(() => h.stop());

const publish = (...events: EventEnvelope<unknown>[]) => publishEvents(h.exchange, events);
const member = () => registerMember(h);

const list = async (who: Member, query = '') => {
  const res = await h.call(who.as, 'GET', `/notifications${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((item: unknown) => notificationSchema.parse(item));
};
const unread = async (who: Member) =>
  (await h.call(who.as, 'GET', '/notifications/unread-count')).body.data.unread as number;

/** Waits until `who` has `count` notifications, then returns them (newest first). */
const settled = (who: Member, count: number) =>
  waitFor(async () => ((await list(who)).length === count ? list(who) : undefined), {
    what: `${count} notifications of ${who.user.username}`,
    timeoutMs: 10_000,
  });

/** A marker event to `who`: once it is there, everything published before it was applied. */
async function drained(who: Member, before: number) {
  const other = await member();
  await publish(content(other, { post_author: who }));
  return (await settled(who, before + 1)).slice(1);
}

describe('notifications from content events', () => {
  it('tells the post author and the parent comment author of a reply, once each, never the replier', async () => {
    const [author, commenter, replier] = [await member(), await member(), await member()];
    await publish(
      content(commenter, { post_author: author }),
      content(replier, { post_author: author, parent_author: commenter }),
      // Answering your own post or comment tells nobody.
      content(author, { post_author: author }),
      content(commenter, { post_author: author, parent_author: commenter }),
    );
    // Events are applied side by side: the order between them is not the point here.
    const forAuthor = await settled(author, 3);
    const byActor = (n: any) => [n.kind, n.actor.id].join(':');
    expect(forAuthor.map(byActor).sort()).toEqual(
      [`reply:${commenter.user.id}`, `reply:${commenter.user.id}`, `reply:${replier.user.id}`].sort(),
    );
    expect(forAuthor.find((n: any) => n.actor.id === replier.user.id)).toMatchObject({
      read: false,
      actor: {
        id: replier.user.id,
        username: replier.user.username,
        display_name: replier.user.display_name,
      },
      subject: { type: 'comment', post_id: 1, title: 'A post', excerpt: 'Some text' },
    });
    expect((await settled(commenter, 1))[0]).toMatchObject({ kind: 'reply', actor: { id: replier.user.id } });
    expect(await drained(replier, 0)).toEqual([]);
  });

  it('tells the mentioned, whatever the case, once per item, a reply before a mention, never yourself', async () => {
    const [author, named, alsoNamed] = [await member(), await member(), await member()];
    await publish(
      content(author, {
        type: 'post',
        mentions: [named.user.username, alsoNamed.user.username, author.user.username, 'nobody_here'],
      }),
      // Mentioned in a reply to their own comment: one notification, the reply.
      content(author, { post_author: author, parent_author: named, mentions: [named.user.username] }),
    );
    const got = await settled(named, 2);
    expect(got.map((n: any) => n.kind).sort()).toEqual(['mention', 'reply']);
    expect(got.find((n: any) => n.kind === 'mention').subject).toEqual({
      type: 'post',
      id: expect.any(Number),
      title: 'A post',
      excerpt: 'Some text',
    });
    expect((await settled(alsoNamed, 1))[0].kind).toBe('mention');
    expect(await drained(author, 0)).toEqual([]);
  });

  it('folds likes of one post into one unread notification with count and the latest three likers', async () => {
    const [author, a, b, c, d] = [
      await member(),
      await member(),
      await member(),
      await member(),
      await member(),
    ];
    const like = (who: Member, post = 77) =>
      envelope('post.liked', {
        post_id: post,
        user_id: who.user.id,
        author_id: author.user.id,
        title: 'Liked post',
      });
    const unlike = (who: Member) =>
      envelope('post.unliked', {
        post_id: 77,
        user_id: who.user.id,
        author_id: author.user.id,
        title: 'Liked post',
      });
    // One at a time: which liker is latest is the point.
    const folded = (count: number) =>
      waitFor(
        async () =>
          (
            await h.sql`select 1 from notifications
              where recipient_id = ${author.user.id} and subject_id = 77 and count = ${count}`
          ).length === 1 || undefined,
        { what: `${count} likes folded` },
      );
    await publish(like(a));
    await folded(1);
    await publish(like(b));
    await folded(2);
    await publish(unlike(a), like(a));
    await publish(like(c));
    await folded(3);
    // Liking your own post tells nobody; a like of another post is another notification.
    await publish(
      envelope('post.liked', { post_id: 77, user_id: author.user.id, author_id: author.user.id }),
    );
    await publish(like(d, 78));
    const two = await settled(author, 2);
    const other = two.find((n: any) => n.subject.id === 78);
    const three = two.find((n: any) => n.subject.id === 77);
    expect(other).toMatchObject({ kind: 'like', count: 1, subject: { type: 'post', id: 78 } });
    expect(three).toMatchObject({
      kind: 'like',
      count: 3,
      actor: { id: c.user.id },
      subject: { type: 'post', id: 77, title: 'Liked post' },
    });
    expect(three.actors.map((x: any) => x.id)).toEqual([c.user.id, b.user.id, a.user.id]);
    expect(await unread(author)).toBe(2);
    // Once read, the next like starts a new notification.
    await h.call(author.as, 'POST', '/notifications/read', { body: { ids: [three.id] } });
    await publish(like(d));
    const [fresh] = await settled(author, 3);
    expect(fresh).toMatchObject({ kind: 'like', count: 1, read: false, actors: [{ id: d.user.id }] });
    expect(fresh.id).toBeGreaterThan(Math.max(other.id, three.id));
  });

  it('tells a member of a badge earned', async () => {
    const author = await member();
    await publish(envelope('post.created', { id: 555, title: 't', author_id: author.user.id }));
    const [badge] = await settled(author, 1);
    expect(badge).toMatchObject({
      kind: 'badge',
      actor: null,
      subject: { type: 'badge', id: 1, title: 'First Post' },
    });
  });

  it('removes what a deleted or hidden post or comment is the subject of', async () => {
    const [author, other] = [await member(), await member()];
    const onPost = content(other, { post_id: 900, post_author: author });
    const onOther = content(other, { post_id: 901, post_author: author });
    const hiddenLater = content(other, { post_id: 902, post_author: author });
    await publish(onPost, onOther, hiddenLater);
    await settled(author, 3);
    await publish(
      envelope('post.deleted', { id: 900, author_id: author.user.id }),
      envelope('comment.deleted', { id: onOther.data.id, post_id: 901, author_id: other.user.id }),
      envelope('moderation.action', {
        actor_id: null,
        action: 'hide',
        target_type: 'comment',
        target_id: hiddenLater.data.id,
        reason: null,
      }),
    );
    expect(await drained(author, 0)).toEqual([]);
  });

  it('never makes one twice from a redelivered event', async () => {
    const [author, other] = [await member(), await member()];
    const once = content(other, { post_author: author });
    await publish(once, once, once);
    expect(await drained(author, 1)).toHaveLength(1);
  });
});

describe('the notification endpoints', () => {
  it('lists newest first, by page, by cursor and unread only; counts and marks only your own', async () => {
    const [me, them, stranger] = [await member(), await member(), await member()];
    await publish(...Array.from({ length: 5 }, () => content(them, { post_author: me })));
    await publish(content(me, { post_author: stranger }));
    const all = await settled(me, 5);
    expect(all.map((n: any) => n.id)).toEqual([...all.map((n: any) => n.id)].sort((x, y) => y - x));
    const theirs = (await settled(stranger, 1))[0];

    const first = await h.call(me.as, 'GET', '/notifications?limit=2');
    expect(first.body.pagination).toMatchObject({ total_items: 5, per_page: 2 });
    const next = await h.call(
      me.as,
      'GET',
      `/notifications?limit=2&cursor=${first.body.pagination.next_cursor}`,
    );
    expect(next.body.data.map((n: any) => n.id)).toEqual([all[2].id, all[3].id]);

    const marked = await h.call(me.as, 'POST', '/notifications/read', {
      body: { ids: [all[0].id, all[1].id, theirs.id, 2_000_000_000] },
    });
    expect(marked.body.data).toEqual({ marked: 2 });
    expect(await unread(me)).toBe(3);
    expect(await unread(stranger)).toBe(1);
    expect((await list(me, '?unread=true')).map((n: any) => n.id)).toEqual(
      all.slice(2).map((n: any) => n.id),
    );
    expect((await h.call(me.as, 'POST', '/notifications/read', { body: { all: true } })).body.data).toEqual({
      marked: 3,
    });
    expect(await unread(me)).toBe(0);
    expect(await list(me, '?unread=true')).toEqual([]);
  });

  it('answers bad input with the envelope, and the scopes the operations name', async () => {
    const me = await member();
    for (const body of [
      {},
      { ids: [] },
      { ids: [0] },
      { all: false },
      { ids: [1], all: true },
      { ids: Array(101).fill(1) },
    ]) {
      const res = await h.call(me.as, 'POST', '/notifications/read', { body });
      expect([res.status, res.body.error]).toEqual([400, 'validation_error']);
    }
    expect((await h.call(me.as, 'GET', '/notifications?unread=yes')).status).toBe(400);
    expect((await h.call(me.as, 'GET', '/notifications?cursor=nonsense')).status).toBe(400);
    const reader = actor(me.user.id, 'member', ['read']);
    expect((await h.call(reader, 'POST', '/notifications/read', { body: { all: true } })).status).toBe(403);
    // The stream needs read, checked here too (the gateway checks it first).
    const writer = actor(me.user.id, 'member', ['write']);
    expect((await h.call(writer, 'GET', '/notifications/stream')).status).toBe(403);
    expect((await h.call(null, 'GET', '/notifications')).status).toBe(401);
  });
});

describe('the notification stream', () => {
  const streams: OpenedStream[] = [];
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  async function stream(who: Member, lastEventId?: number, url = h.url) {
    const path = '/api/v1/notifications/stream';
    const headers = signIdentity(h.config.INTERNAL_TOKEN, { method: 'GET', url: path, actor: who.as });
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    const opened = await openEventStream(url + path, headers);
    streams.push(opened);
    return opened;
  }

  it('pushes each new notification of yours within a second, with heartbeats, and nobody else’s', async () => {
    const [me, them] = [await member(), await member()];
    const mine = await stream(me);
    const theirs = await stream(them);
    expect(mine.status).toBe(200);
    expect(mine.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const sent = Date.now();
    await publish(content(them, { post_author: me }));
    const event = await mine.next((e) => e.event === 'notification', 1_000);
    expect(Date.now() - sent).toBeLessThan(1_000);
    const item = notificationSchema.parse(JSON.parse(event.data!));
    expect(event.id).toBe(String(item.id));
    expect(item).toMatchObject({ kind: 'reply', actor: { id: them.user.id } });
    await mine.next((e) => e.comment === 'keep-alive', 3_000);
    expect(theirs.notifications()).toEqual([]);
  });

  it('replays exactly what was missed after Last-Event-ID, then goes on live', async () => {
    const [me, them] = [await member(), await member()];
    await publish(...Array.from({ length: 3 }, () => content(them, { post_author: me })));
    const [third, second, first] = await settled(me, 3);
    const resumed = await stream(me, first.id);
    await resumed.next(() => resumed.notifications().length === 2);
    expect(resumed.notifications().map((n) => n.id)).toEqual([second.id, third.id]);
    await publish(content(them, { post_author: me }));
    await resumed.next(() => resumed.notifications().length === 3);
    const [, , live] = resumed.notifications();
    expect(live.id).toBeGreaterThan(third.id);
    expect((await stream(me, third.id + 1_000_000)).notifications()).toEqual([]);
  });

  it('refuses a Last-Event-ID it never sent, in the envelope', async () => {
    const me = await member();
    const bad = await stream(me, undefined);
    bad.close();
    const path = '/api/v1/notifications/stream';
    const headers = signIdentity(h.config.INTERNAL_TOKEN, { method: 'GET', url: path, actor: me.as });
    for (const id of ['9999999999', '-1', '1, 2', '1e3']) {
      const res = await fetch(h.url + path, { headers: { ...headers, 'last-event-id': id } });
      expect([id, res.status]).toEqual([id, 400]);
    }
    const res = await fetch(h.url + path, { headers: { ...headers, 'last-event-id': 'abc' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'validation_error',
      details: { field: 'Last-Event-ID' },
    });
  });

  it('reaches a stream held by another replica, whichever replica consumed the event', async () => {
    const second: UsersService = await start({ ...h.config, USERS_SERVICE_PORT: 0 });
    try {
      const [me, them] = [await member(), await member()];
      const onFirst = await stream(me);
      const onSecond = await stream(me, undefined, second.url);
      // Both replicas take events from one queue: publish until the second one has applied some.
      let sent = 0;
      for (let round = 0; round < 20 && (await applied(second.url)) === 0; round++) {
        await publish(...Array.from({ length: 5 }, () => content(them, { post_author: me })));
        sent += 5;
        await waitFor(async () => (await list(me)).length === Math.min(sent, 20) || undefined, {
          what: 'the round applied',
        });
      }
      expect(await applied(second.url)).toBeGreaterThan(0);
      const stored = await h.sql<{ id: number }[]>`
        select id from notifications where recipient_id = ${me.user.id} order by id`;
      for (const s of [onFirst, onSecond]) {
        await s.next(() => s.notifications().length === stored.length, 5_000);
        // In commit order, which two replicas need not make id order.
        expect(
          s
            .notifications()
            .map((n) => n.id)
            .sort((a, b) => a - b),
        ).toEqual(stored.map((row) => row.id));
      }
    } finally {
      await second.stop();
    }
  });

  it('ends every stream when the service stops, so clients reconnect elsewhere', async () => {
    const other: UsersService = await start({ ...h.config, USERS_SERVICE_PORT: 0 });
    const me = await member();
    const open = await stream(me, undefined, other.url);
    const stopping = Date.now();
    await other.stop();
    await open.ended;
    expect(Date.now() - stopping).toBeLessThan(1_000);
    expect(await open.text).toMatch(/^: open\n\n/);
  });
});

/** How many content events this process applied (its own /metrics). */
async function applied(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('events_consumed_total') && line.includes('outcome="applied"'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}
