import postgres from 'postgres';
import { testInfra, waitFor } from '@community/test-harness';
import { expectStatus, httpClient, type Answer, type Call } from '../../src/client/http';
import { about, createComment, createPost, deliveredWhen, profileWhen, subscribe } from '../../src/flows';
import type { OwnedStack } from '../../src/stack/owned-stack';
import { openOwnedTarget, type Target } from '../../src/target';
import { runTraffic } from '../../src/traffic';
import { UNLIMITED, type Member } from '../../src/world';

// Issue 23: two processes of every service against one PostgreSQL, Redis and RabbitMQ, each pair
// behind a round-robin balancer (as behind a Kubernetes Service); traffic spread over both gateways.

let target: Target & { owned: OwnedStack };
/** Each gateway process on its own, bypassing the balancer. */
let gateways: Call[];
beforeAll(async () => {
  target = await openOwnedTarget('twoofeach', { replicas: 2 });
  gateways = target.owned.replicas.gateway.map((g) => httpClient(g.url));
}, 180_000);
afterAll(() => target?.close(), 90_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A call as `member` on gateway `i` (0 or 1). */
const on =
  (i: number, member: Member): Call =>
  (method, path, options = {}) =>
    gateways[i]!(method, path, { key: member.key, ip: member.ip, ...options });

it('started two of each, and both data-service replicas migrating at once applied each migration once', async () => {
  const { replicas } = target.owned;
  for (const name of ['posts', 'users', 'webhooks', 'gateway'] as const) {
    expect(replicas[name].map((p) => p.running)).toEqual([true, true]);
  }
  const sql = postgres(`${testInfra().pgUrl.replace(/\/[^/]*$/, '')}/${target.owned.databaseName}`, {
    max: 1,
    onnotice: () => {},
  });
  try {
    for (const schema of ['posts', 'users', 'webhooks']) {
      const [row] = await sql.unsafe(
        `select count(*)::int as n, count(distinct name)::int as d from "${schema}".schema_migrations`,
      );
      expect(row!.n).toBeGreaterThan(0);
      expect(row!.n).toBe(row!.d);
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
});

it('gives a free account exactly 100 of 130 requests, whichever gateway answers, and both 429s agree', async () => {
  const member = await target.world.member();
  // The key creation and its pages counted nothing on the account's API budget; spread 130 over both,
  // 8 at a time: a free account has at most 8 requests in flight (DESIGN.md §21).
  const answers: Answer[] = [];
  for (let sent = 0; sent < 130; sent += 8)
    answers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(8, 130 - sent) }, (_, i) =>
          on((sent + i) % 2, member)('GET', '/api/v1/categories'),
        ),
      )),
    );
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(100);
  expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  // Spent, whichever gateway is asked next.
  const refused = await Promise.all([0, 1].map((i) => on(i, member)('GET', '/api/v1/categories')));
  for (const answer of refused) {
    expect(answer.status).toBe(429);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
  }
  const resets = refused.map((a) => Number(a.headers.get('x-ratelimit-reset')));
  expect(Math.abs(resets[0]! - resets[1]!)).toBeLessThanOrEqual(1);
});

/** Polls both gateways until `done` holds for each answer; returns how long that took. */
async function bothWithin(member: Member, path: string, done: (a: Answer) => boolean): Promise<number> {
  const started = Date.now();
  await waitFor(
    async () => {
      const answers = await Promise.all([0, 1].map((i) => on(i, member)('GET', path)));
      return answers.every(done) || undefined;
    },
    { what: `both gateways to change their answer to ${path}`, timeoutMs: 5_000, intervalMs: 50 },
  );
  return Date.now() - started;
}

it('applies a plan change, a suspension and a revoked key on both gateways within 1 s', async () => {
  const member = await target.world.member();
  // Both gateways have the key cached.
  for (const i of [0, 1]) expectStatus(await on(i, member)('GET', '/api/v1/users/me'), 200);

  await target.world.setPlan(member.id, { plan: 'pro' });
  expect(
    await bothWithin(member, '/api/v1/users/me', (a) => a.headers.get('x-ratelimit-limit') === '5000'),
  ).toBeLessThan(1_000);

  const admin = await target.world.admin();
  expectStatus(
    await target.world.as(admin)('PUT', `/api/v1/users/${member.id}/suspension`, {
      body: { reason: 'replicas' },
    }),
    200,
  );
  expect(await bothWithin(member, '/api/v1/users/me', (a) => a.status === 403)).toBeLessThan(1_000);
  expectStatus(await target.world.as(admin)('DELETE', `/api/v1/users/${member.id}/suspension`), 200);
  await bothWithin(member, '/api/v1/users/me', (a) => a.status === 200);

  expectStatus(await on(0, member)('DELETE', `/api/v1/keys/${member.keyId}`), 200);
  expect(await bothWithin(member, '/api/v1/users/me', (a) => a.status === 401)).toBeLessThan(1_000);
});

it('delivers every public event once per endpoint with two relays and two dispatchers', async () => {
  const { world, receiver } = target;
  const author = await world.member({ plan: UNLIMITED });
  const endpoints = ['twin-a', 'twin-b'];
  for (const name of endpoints)
    await subscribe(world.as(author), receiver, name, ['post.created', 'comment.created']);
  const categoryId = await world.category();
  const posts = await Promise.all(
    Array.from({ length: 20 }, (_, i) => createPost(on(i % 2, author), categoryId, { title: `Twin ${i}` })),
  );
  const comments = await Promise.all(
    posts.map((p: { id: number }, i) => createComment(on(i % 2, author), p.id)),
  );
  const expected = posts.length + comments.length;
  for (const name of endpoints) {
    await waitFor(() => receiver.acknowledged(name).length >= expected || undefined, {
      what: `${expected} deliveries at ${name}`,
      timeoutMs: 30_000,
    });
    // Let any duplicate arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const got = receiver.verified(name);
    const ids = got.map((d) => d.webhookId);
    expect(new Set(ids).size).toBe(expected);
    expect(ids).toHaveLength(expected);
    expect(
      got
        .filter((d) => d.event === 'post.created')
        .map((d) => d.data.id)
        .sort((a, b) => a - b),
    ).toEqual(posts.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b));
  }
});

it('keeps stats, reputation and badges exact with two users-service consumers under concurrent likes and comments', async () => {
  const { world } = target;
  const author = await world.member({ plan: UNLIMITED });
  const categoryId = await world.category();
  const post = await createPost(world.as(author), categoryId);
  const likers = await Promise.all(Array.from({ length: 12 }, () => world.member({ plan: UNLIMITED })));
  await Promise.all([
    ...likers.map((liker, i) => on(i % 2, liker)('POST', `/api/v1/posts/${post.id}/like`)),
    ...Array.from({ length: 10 }, (_, i) => createComment(on(i % 2, author), post.id, `Own comment ${i}`)),
  ]);
  const shown = await profileWhen(
    world.as(author),
    author.id,
    (u) => u.stats.likes_received === 12 && u.stats.comments === 10,
    30_000,
  );
  expect(shown.stats).toEqual({ posts: 1, comments: 10, likes_received: 12 });
  // +10 per like received, +2 per post, +1 per comment.
  expect(shown.reputation).toBe(12 * 10 + 2 + 10);
  // In the order they were awarded, which concurrent events need not keep.
  expect(shown.badges.map((b: { name: string }) => b.name).sort()).toEqual([
    'Conversationalist',
    'First Post',
    'Liked',
  ]);
});

it('spread the traffic over both processes of every service', () => {
  for (const [name, balancer] of Object.entries(target.owned.balancers)) {
    expect([name, balancer!.counts().every((n) => n > 0)]).toEqual([name, true]);
  }
});

it('carries on when one process of each service is SIGKILLed mid-traffic: nothing lost, nothing twice, no hang', async () => {
  const { world, receiver, owned } = target;
  const author = await world.member({ plan: UNLIMITED });
  const as = world.as(author);
  await subscribe(as, receiver, 'twin-kill', ['post.created']);
  const categoryId = await world.category();
  let n = 0;
  /** Each post is asked for until it is answered 201, always with the same Idempotency-Key. */
  const finals = new Map<string, number>();
  const traffic = runTraffic(
    4,
    async (call) => {
      const title = `Under fire ${++n}`;
      for (let attempt = 0; attempt < 40; attempt++) {
        const created = await call('create', 'POST', '/api/v1/posts', {
          title,
          content: title,
          category_id: categoryId,
        });
        if (created.status === 201) {
          finals.set(title, created.body.data.id);
          break;
        }
        await sleep(250);
      }
      await call('list', 'GET', '/api/v1/posts?limit=5');
    },
    // The key travels with every try, and so does the title's own key (set per request below).
    (method, path, options = {}) =>
      as(method, path, {
        ...options,
        headers:
          method === 'POST'
            ? { 'idempotency-key': `kill-${(options.body as { title: string }).title.replace(/\W/g, '-')}` }
            : {},
      }),
  );
  let killedAt = 0;
  try {
    await waitFor(() => finals.size >= 4 || undefined, { what: 'posts before the kill', timeoutMs: 20_000 });
    killedAt = Date.now();
    await Promise.all(
      (['posts', 'users', 'webhooks', 'gateway'] as const).map((name) => owned.replicas[name][1]!.kill()),
    );
    await waitFor(
      () =>
        traffic.outcomes.some((o) => o.op === 'create' && o.status === 201 && o.at > killedAt + 1_000) ||
        undefined,
      { what: 'posts written by the survivors', timeoutMs: 20_000 },
    );
    await sleep(1_000);
  } finally {
    await traffic.stop();
  }
  const outcomes = traffic.outcomes;

  // No request hung: every one was answered, or cut at once by the process that died.
  expect(outcomes.filter((o) => o.ms >= 10_000)).toEqual([]);
  const afterKill = outcomes.filter((o) => o.at > killedAt);
  const failures = afterKill.filter((o) => o.status !== 200 && o.status !== 201);
  // The survivors carry on at once: what failed after the kill is a connection the dead gateway cut
  // (no answer at all) or a fast 503, and nothing fails a breaker's reset (5 s) after it.
  expect(failures.filter((o) => o.status !== 0 && o.status !== 503)).toEqual([]);
  const lastFailure = Math.max(killedAt, ...failures.map((o) => o.at + o.ms)) - killedAt;
  expect(lastFailure).toBeLessThan(6_000);

  // Nothing lost, nothing twice: every title answered 201 exists once, with the id it was answered.
  const mine: { id: number; title: string }[] = [];
  for (let page = 1; ; page++) {
    const res = expectStatus(
      await as('GET', `/api/v1/posts?author=${author.id}&limit=100&page=${page}`),
      200,
    );
    mine.push(...res.body.data);
    if (res.body.data.length < 100) break;
  }
  const titles = mine.map((p: { title: string }) => p.title);
  expect(new Set(titles).size).toBe(titles.length);
  for (const [title, id] of finals)
    expect(mine.find((p: { title: string }) => p.title === title)?.id).toBe(id);
  // Every post's event reaches the endpoint, once by webhook-id (a killed dispatcher's lease runs out).
  await deliveredWhen(
    receiver,
    'twin-kill',
    (ds) => mine.every((p: { id: number }) => about(ds, 'post.created', p.id).length === 1),
    40_000,
  );
  const ids = receiver.acknowledged('twin-kill').map((d) => d.webhookId);
  expect(new Set(ids).size).toBe(ids.length);
}, 120_000);
