import { waitFor, type TcpProxy } from '@community/test-harness';
import { expectStatus, type Answer } from '../../src/client/http';
import { about, createComment, createPost, profileWhen, subscribe } from '../../src/flows';
import { openOwnedTarget, type Target } from '../../src/target';
import type { OwnedStack } from '../../src/stack/owned-stack';
import { UNLIMITED } from '../../src/world';

let target: Target & { owned: OwnedStack };
beforeAll(async () => {
  target = await openOwnedTarget('netfaults');
}, 120_000);
afterAll(() => target?.close(), 60_000);

/** The gateway's own readiness: which of its links (redis, rabbitmq) it sees as up. */
async function gatewayChecks(): Promise<Record<string, string>> {
  const res = await fetch(`${target.baseUrl}/readyz`);
  const body = (await res.json()) as { checks: Record<string, { status: string }> };
  return Object.fromEntries(Object.entries(body.checks).map(([name, check]) => [name, check.status]));
}

const remaining = (res: Answer) => Number(res.headers.get('x-ratelimit-remaining'));

/** Runs `work` with the link behind `proxy` cut, and restores it whatever happens. */
async function whileCut<T>(proxy: TcpProxy, work: () => Promise<T>): Promise<T> {
  await proxy.cut();
  try {
    return await work();
  } finally {
    proxy.restore();
  }
}

describe('RabbitMQ unreachable', () => {
  it('accepts every write during the outage, then delivers each event exactly once per endpoint and gets stats exact', async () => {
    const { world, receiver, owned } = target;
    const endpoints = ['rabbit-a', 'rabbit-b'];
    for (const name of endpoints) await subscribe(world.as(await world.member()), receiver, name);
    const author = await world.member({ plan: UNLIMITED });
    const fan = await world.member({ plan: UNLIMITED });
    const categoryId = await world.category();
    const asAuthor = world.as(author);
    const asFan = world.as(fan);

    const { posts, comments, seconds } = await whileCut(owned.amqpProxy, async () => {
      await waitFor(async () => (await gatewayChecks()).rabbitmq === 'down', {
        what: 'the broker to be gone',
      });
      const started = Date.now();
      const posts = [];
      for (let i = 0; i < 6; i++)
        posts.push(await createPost(asAuthor, categoryId, { title: `Outage post ${i}` }));
      const comments = [];
      for (const post of posts.slice(0, 4)) {
        for (let i = 0; i < 3; i++) comments.push(await createComment(asFan, post.id, `Outage comment ${i}`));
      }
      for (const post of posts.slice(0, 3))
        expectStatus(await asFan('POST', `/api/v1/posts/${post.id}/like`), 200);
      for (const post of posts.slice(0, 2)) {
        const body = { content: `${post.content} (edited)` };
        expectStatus(await asAuthor('PUT', `/api/v1/posts/${post.id}`, { body }), 200);
      }
      expectStatus(await asAuthor('DELETE', `/api/v1/posts/${posts[5].id}`), 200);
      const seconds = (Date.now() - started) / 1000;
      // Nothing about them got through while the broker was away: the events wait in the outboxes.
      const leaked = receiver.received.filter(
        (r) => r.endpoint.startsWith('rabbit') && /"(post|comment)\./.test(r.rawBody),
      );
      expect(leaked).toHaveLength(0);
      expect((await profileWhen(asAuthor, author.id, () => true)).stats.posts).toBe(0);
      return { posts, comments, seconds };
    });
    const expected = [
      ...posts.map((p) => ['post.created', p.id] as const),
      ...comments.map((c) => ['comment.created', c.id] as const),
      ...posts.slice(0, 2).map((p) => ['post.updated', p.id] as const),
      ['post.deleted', posts[5].id] as const,
    ];
    const ours = (name: string) =>
      receiver
        .acknowledged(name)
        .filter((d) => expected.some(([e, id]) => d.event === e && d.data.id === id));
    await waitFor(() => endpoints.every((name) => ours(name).length >= expected.length), {
      timeoutMs: 45_000,
      intervalMs: 200,
      what: `${expected.length} deliveries at each endpoint after the broker came back`,
    });
    // Anything late or doubled would show up within a few dispatcher polls.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const name of endpoints) {
      const delivered = receiver.acknowledged(name);
      for (const [event, id] of expected)
        expect([event, id, about(delivered, event, id).length]).toEqual([event, id, 1]);
      const requests = receiver.received.filter((r) => r.endpoint === name);
      expect(new Set(requests.map((r) => r.webhookId)).size).toBe(requests.length);
    }

    // 5 live posts (+2 each), 3 likes received (+10 each); 12 comments (+1 each) earn a badge.
    const authorProfile = await profileWhen(asAuthor, author.id, (u) => u.stats.likes_received === 3);
    expect([authorProfile.stats, authorProfile.reputation]).toEqual([
      { posts: 5, comments: 0, likes_received: 3 },
      40,
    ]);
    const fanProfile = await profileWhen(asFan, fan.id, (u) => u.stats.comments === 12);
    expect([fanProfile.stats, fanProfile.reputation]).toEqual([
      { posts: 0, comments: 12, likes_received: 0 },
      12,
    ]);
    expect(fanProfile.badges.map((b: { name: string }) => b.name)).toEqual(['Conversationalist']);
    expect(seconds).toBeLessThan(20);
  }, 60_000);
});

describe('Redis unreachable', () => {
  it('keeps serving with limit headers from memory, and the Redis counts resume afterwards', async () => {
    const { world, owned } = target;
    const member = await world.member({ plan: { plan: 'enterprise', hourly_limit: 30, daily_limit: 1_000 } });
    const as = world.as(member);
    for (let i = 0; i < 5; i++) expectStatus(await as('GET', '/api/v1/posts'), 200);

    await whileCut(owned.redisProxy, async () => {
      await waitFor(async () => (await gatewayChecks()).redis === 'down', { what: 'redis to be gone' });
      for (let i = 0; i < 10; i++) {
        const res = await as('GET', '/api/v1/posts');
        expect([res.status, res.headers.get('x-ratelimit-limit')]).toEqual([200, '30']);
        expect(remaining(res)).toBe(29 - i); // the in-memory window counts on its own
        expect(res.ms).toBeLessThan(2_000);
      }
    });
    await waitFor(async () => (await gatewayChecks()).redis === 'ok', {
      timeoutMs: 15_000,
      what: 'redis back',
    });
    const after = expectStatus(await as('GET', '/api/v1/posts'), 200);
    expect(remaining(after)).toBe(24); // 5 before the outage and this one, as Redis counted them
    for (let i = 0; i < 24; i++) expectStatus(await as('GET', '/api/v1/posts'), 200);
    const refused = await as('GET', '/api/v1/posts');
    expect([refused.status, refused.body.error]).toEqual([429, 'rate_limit_exceeded']);
  }, 60_000);
});

describe('PostgreSQL connections dropped', () => {
  it('recovers in every service without a restart, answering 503 at worst and never 500', async () => {
    const { world, receiver, owned } = target;
    const pids = Object.values(owned.services).map((s) => s.pid);
    const member = await world.member({ plan: UNLIMITED });
    const as = world.as(member);
    const categoryId = await world.category();
    await subscribe(as, receiver, 'pg', ['post.created']);
    const traffic = async () => [
      await as('GET', '/api/v1/posts'),
      await as('POST', '/api/v1/posts', { body: { title: 'pg', content: 'pg', category_id: categoryId } }),
      await as('GET', `/api/v1/users/${member.id}`),
      await as('GET', '/api/v1/webhooks'),
    ];
    for (const res of await traffic()) expect(res.status).toBeLessThan(300);

    // Four clients keep calling while every service's connections are killed three times over.
    const statuses: number[] = [];
    let dropping = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (dropping) statuses.push(...(await traffic()).map((r) => r.status));
    });
    const terminated: number[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const schema of ['posts', 'users', 'webhooks'] as const) {
          terminated.push(await owned.terminateDbConnections(schema));
        }
      }
    } finally {
      dropping = false;
      await Promise.all(clients);
    }
    expect(terminated.slice(0, 3).every((n) => n > 0)).toBe(true);
    expect(statuses.length).toBeGreaterThan(12);
    // A query on a killed connection may fail as 503 service_unavailable; never as a 500.
    expect(statuses.filter((s) => s >= 300 && s !== 503)).toEqual([]);
    await waitFor(async () => (await traffic()).every((r) => r.status < 300), {
      timeoutMs: 15_000,
      intervalMs: 200,
      what: 'every service to answer again',
    });

    // The background work reconnected too: relay, consumers and the dispatcher.
    const post = await createPost(as, categoryId, { title: 'after the drop' });
    await profileWhen(as, member.id, (u) => u.stats.posts >= 2);
    await waitFor(() => receiver.acknowledged('pg').some((d) => d.data.id === post.id), {
      timeoutMs: 15_000,
      what: 'the webhook of a post made after the drop',
    });
    expect(Object.values(owned.services).map((s) => s.pid)).toEqual(pids);
  }, 60_000);
});
