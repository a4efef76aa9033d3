import amqp from 'amqplib';
import { topologyNames, type EventEnvelope } from '@community/events';
import {
  probeQueue,
  publishEvents,
  startTcpProxy,
  testEnvelope as envelope,
  testInfra,
  waitFor,
  withProbe,
  type Probed,
} from '@community/test-harness';
import { alice, bob, createCategory, createPost, moderator } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: Probed<PostsHarness>;
beforeAll(async () => {
  h = await withProbe(await startPostsService('events'));
});
afterAll(() => h.stop());

const received = (event: string, match: (data: any) => boolean = () => true) =>
  waitFor(
    () => (h.probe.bodies() as EventEnvelope<any>[]).find((body) => body.event === event && match(body.data)),
    { what: `${event} event`, timeoutMs: 5000 },
  );

const publish = (event: EventEnvelope<unknown>) => publishEvents(h.exchange, [event]);

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('events posts-service publishes through its outbox', () => {
  it('publishes post.created with data exactly {id, title, author_id}', async () => {
    const post = await createPost(h, alice, { title: 'Event me' });
    const event = await received('post.created', (data) => data.id === post.id);
    expect(event.id).toMatch(/^evt_/);
    expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(event.data).toEqual({ id: post.id, title: 'Event me', author_id: alice.userId });
  });

  it('publishes post.updated with the changed fields, and nothing for a no-op update', async () => {
    const post = await createPost(h, alice, { title: 'Before' });
    await h.call(alice, 'PUT', `/posts/${post.id}`, { body: { title: 'Before' } });
    await h.call(moderator, 'PUT', `/posts/${post.id}`, { body: { title: 'After', is_pinned: true } });
    const event = await received('post.updated', (data) => data.id === post.id);
    expect(event.data).toEqual({
      id: post.id,
      title: 'After',
      author_id: alice.userId,
      changed: ['title', 'is_pinned'],
    });
    const [{ count }] = (await h.sql`
      select count(*)::int from outbox where event = 'post.updated' and (payload->'data'->>'id')::int = ${post.id}`) as any;
    expect(count).toBe(1);
  });

  it('publishes post.deleted, comment.created, comment.deleted, post.liked and post.unliked', async () => {
    const post = await createPost(h, alice);
    const c = await h.call(bob, 'POST', `/posts/${post.id}/comments`, { body: { content: 'hi' } });
    await h.call(bob, 'POST', `/posts/${post.id}/like`);
    await h.call(bob, 'DELETE', `/posts/${post.id}/like`);
    await h.call(bob, 'DELETE', `/comments/${c.body.data.id}`);
    await h.call(alice, 'DELETE', `/posts/${post.id}`);
    const commentId = c.body.data.id;
    expect((await received('comment.created', (d) => d.id === commentId)).data).toEqual({
      id: commentId,
      post_id: post.id,
      author_id: bob.userId,
      parent_id: null,
    });
    const like = { post_id: post.id, user_id: bob.userId, author_id: alice.userId, title: post.title };
    expect((await received('post.liked', (d) => d.post_id === post.id)).data).toEqual(like);
    expect((await received('post.unliked', (d) => d.post_id === post.id)).data).toEqual(like);
    expect((await received('comment.deleted', (d) => d.id === commentId)).data).toEqual({
      id: commentId,
      post_id: post.id,
      author_id: bob.userId,
    });
    expect((await received('post.deleted', (d) => d.id === post.id)).data).toEqual({
      id: post.id,
      author_id: alice.userId,
    });
  });

  it('announces each new post and comment with what its notifications need (content.created)', async () => {
    const post = await createPost(h, alice, {
      title: 'Ask @Carol_1 anything',
      content: 'Thanks @bob, and @bob again; mail alice@example.test, not @al.',
    });
    expect((await received('content.created', (d) => d.id === post.id && d.type === 'post')).data).toEqual({
      type: 'post',
      id: post.id,
      post_id: post.id,
      author_id: alice.userId,
      post_author_id: alice.userId,
      parent_author_id: null,
      title: 'Ask @Carol_1 anything',
      excerpt: 'Thanks @bob, and @bob again; mail alice@example.test, not @al.',
      mentions: ['carol_1', 'bob'],
    });
    // A post that mentions nobody notifies nobody: users-service is not told of it.
    const quiet = await createPost(h, alice, { title: 'Nobody named', content: 'mail alice@example.test' });
    const told = await h.sql<{ event: string }[]>`
      select event from outbox where payload->'data'->>'id' = ${String(quiet.id)} order by id`;
    expect(told.map((row) => row.event)).toEqual(['post.created']);
    const names = Array.from({ length: 11 }, (_, i) => `@user_${i}`).join(' ');
    const top = await h.call(bob, 'POST', `/posts/${post.id}/comments`, { body: { content: names } });
    const reply = await h.call(alice, 'POST', `/posts/${post.id}/comments`, {
      body: { content: `  ${'long '.repeat(40)}`, parent_id: top.body.data.id },
    });
    const first = await received('content.created', (d) => d.id === top.body.data.id && d.type === 'comment');
    expect(first.data).toMatchObject({
      post_author_id: alice.userId,
      parent_author_id: null,
      title: post.title,
    });
    // The eleventh name is not notified.
    expect(first.data.mentions).toEqual(Array.from({ length: 10 }, (_, i) => `user_${i}`));
    const second = await received(
      'content.created',
      (d) => d.id === reply.body.data.id && d.type === 'comment',
    );
    expect(second.data).toMatchObject({
      author_id: alice.userId,
      parent_author_id: bob.userId,
      mentions: [],
    });
    // One plain line of at most 140 characters.
    expect(second.data.excerpt).toHaveLength(140);
    expect(second.data.excerpt).toMatch(/^long long .*…$/);
  });

  it('commits nothing and publishes nothing when the write fails', async () => {
    const before = (await h.sql`select count(*)::int as n from outbox`)[0]!.n;
    const res = await h.call(alice, 'POST', '/posts', {
      body: { title: 't', content: 'c', category_id: 999999 },
    });
    expect(res.status).toBe(400);
    expect((await h.sql`select count(*)::int as n from outbox`)[0]!.n).toBe(before);
  });
});

describe('events the authors replica follows user events', () => {
  it('fills in an author from user.registered and user.updated', async () => {
    const post = await createPost(h, { userId: 4242, role: 'member', scopes: new Set(['read', 'write']) });
    expect((await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.author.username).toBe('user_4242');
    await publish(envelope('user.registered', { id: 4242, username: 'carol', display_name: 'Carol' }));
    await waitFor(
      async () => (await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.author.username === 'carol',
      {
        what: 'replicated author',
      },
    );
    await publish(
      envelope('user.updated', {
        id: 4242,
        username: 'carol',
        display_name: 'Carol C.',
        avatar: 'https://img.test/c.png',
      }),
    );
    await waitFor(
      async () =>
        (await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.author.avatar ===
        'https://img.test/c.png',
      { what: 'updated avatar' },
    );
    expect((await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.author.display_name).toBe('Carol C.');
  });

  it('goes back to the default avatar URL on user.updated with avatar null', async () => {
    const post = await createPost(h, { userId: 4646, role: 'member', scopes: new Set(['read', 'write']) });
    const avatarOf = async () => (await h.call(alice, 'GET', `/posts/${post.id}`)).body.data.author.avatar;
    const profile = { id: 4646, username: 'fay', display_name: 'Fay' };
    const start = Date.now() - 10_000;
    await publish(
      envelope('user.updated', { ...profile, avatar: 'https://img.test/f.png' }, new Date(start)),
    );
    await waitFor(async () => (await avatarOf()) === 'https://img.test/f.png', { what: 'set avatar' });
    await publish(envelope('user.updated', { ...profile, avatar: null }, new Date(start + 2000)));
    const defaultUrl = `${new URL(h.url).origin}/avatars/4646.svg`;
    await waitFor(async () => (await avatarOf()) === defaultUrl, { what: 'default avatar' });
    // A late user.registered says nothing of the avatar and changes nothing.
    await publish(envelope('user.registered', profile, new Date(start + 4000)));
    await publish(
      envelope('user.updated', { ...profile, avatar: 'https://img.test/g.png' }, new Date(start + 6000)),
    );
    await waitFor(async () => (await avatarOf()) === 'https://img.test/g.png', { what: 'second avatar' });
  });

  it('reads the data: URI of a producer from before avatar URLs as the default avatar', async () => {
    const post = await createPost(h, { userId: 4747, role: 'member', scopes: new Set(['read', 'write']) });
    const legacy = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';
    await publish(
      envelope('user.updated', { id: 4747, username: 'gil', display_name: 'Gil', avatar: legacy }),
    );
    await waitFor(async () => (await h.sql`select 1 from authors where id = 4747`).length > 0, {
      what: 'author 4747',
    });
    const res = await h.call(alice, 'GET', `/posts/${post.id}`);
    expect(res.body.data.author).toMatchObject({
      display_name: 'Gil',
      avatar: `${new URL(h.url).origin}/avatars/4747.svg`,
    });
    expect(res.text).not.toContain('data:');
  });

  it('ignores an update older than the one it already holds', async () => {
    const now = Date.now();
    await publish(
      envelope(
        'user.updated',
        { id: 4343, username: 'dan', display_name: 'New', avatar: 'https://a/new' },
        new Date(now),
      ),
    );
    await waitFor(async () => (await h.sql`select 1 from authors where id = 4343`).length > 0, {
      what: 'author 4343',
    });
    await publish(
      envelope(
        'user.updated',
        { id: 4343, username: 'dan', display_name: 'Old', avatar: 'https://a/old' },
        new Date(now - 60_000),
      ),
    );
    const marker = envelope('user.registered', { id: 4344, username: 'marker', display_name: 'M' });
    await publish(marker);
    await waitFor(async () => (await h.sql`select 1 from authors where id = 4344`).length > 0, {
      what: 'marker',
    });
    const [row] = await h.sql`select display_name from authors where id = 4343`;
    expect(row?.displayName).toBe('New');
  });

  it('applies a redelivered event once', async () => {
    const event = envelope('user.registered', { id: 4545, username: 'erin', display_name: 'Erin' });
    const duplicatesBefore = await metric('events_consumed_total', 'outcome="duplicate"');
    await publish(event);
    await publish(event);
    await waitFor(
      async () => (await metric('events_consumed_total', 'outcome="duplicate"')) === duplicatesBefore + 1,
      {
        what: 'the duplicate to be skipped',
      },
    );
    const processed = await h.sql`select event_id from processed_events where event_id = ${event.id}`;
    expect(processed).toHaveLength(1);
  });

  it('sends a poisoned message to the dead-letter queue after bounded retries', async () => {
    const poison = envelope('user.updated', { id: 'not-a-number' });
    await publish(poison);
    const { deadLetterQueue } = topologyNames(h.exchange, 'posts-service');
    const connection = await amqp.connect(testInfra().amqpUrl);
    const channel = await connection.createChannel();
    const dead = await waitFor(
      async () => {
        const message = await channel.get(deadLetterQueue, { noAck: true });
        return message && JSON.parse(message.content.toString()).id === poison.id ? message : undefined;
      },
      { what: 'the poisoned message in the DLQ', timeoutMs: 15_000 },
    );
    expect(JSON.parse(dead.content.toString()).event).toBe('user.updated');
    await connection.close();
    // the consumer keeps going after the poison
    await publish(envelope('user.registered', { id: 4646, username: 'fay', display_name: 'Fay' }));
    await waitFor(async () => (await h.sql`select 1 from authors where id = 4646`).length > 0, {
      what: 'author after poison',
    });
  });
});

describe('events a broker outage delays events, never loses them', () => {
  it('accepts writes while RabbitMQ is unreachable and publishes them after it returns', async () => {
    const infra = new URL(testInfra().amqpUrl);
    const proxy = await startTcpProxy({ host: infra.hostname, port: Number(infra.port || 5672) });
    const service = await startPostsService('outage', { amqpUrl: proxy.url(testInfra().amqpUrl) });
    const outageProbe = await probeQueue(testInfra().amqpUrl, service.exchange);
    try {
      await waitFor(
        async () =>
          ((await (await fetch(`${service.url}/readyz`)).json()) as any).checks.rabbitmq.status === 'ok',
        {
          what: 'broker connection',
        },
      );
      await proxy.cut();
      const category = await createCategory(service, 'Outage');
      const created = [];
      for (const title of ['one', 'two', 'three']) {
        const res = await service.call(alice, 'POST', '/posts', {
          body: { title, content: 'c', category_id: category.id },
        });
        expect(res.status).toBe(201);
        created.push(res.body.data.id);
      }
      const ready = (await (await fetch(`${service.url}/readyz`)).json()) as any;
      expect(ready.status).toBe('degraded');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(outageProbe.bodies()).toHaveLength(0);
      proxy.restore();
      // Each post is announced once: post.created (it mentions nobody, so no content.created).
      const createdEvents = () =>
        (outageProbe.bodies() as EventEnvelope<any>[]).filter((body) => body.event === 'post.created');
      await waitFor(() => createdEvents().length >= 3, {
        what: 'the three events after recovery',
        timeoutMs: 15_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(outageProbe.bodies()).toHaveLength(3);
      const ids = createdEvents().map((body) => body.data.id);
      expect(ids).toEqual(created);
    } finally {
      await outageProbe.close();
      await service.stop();
      await proxy.stop();
    }
  });
});
