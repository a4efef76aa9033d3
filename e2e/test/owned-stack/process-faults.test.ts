import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@community/test-harness';
import { createKeyWithSession } from '../../src/client/account';
import { expectStatus } from '../../src/client/http';
import { expectError } from '../../src/contract';
import { createPost, profileWhen, subscribe } from '../../src/flows';
import { CRASH_AFTER_COMMIT_KEY } from '../../src/stack/owned-stack';
import { openOwnedTarget, targetOfFile } from '../../src/target';
import { postAndList, runTraffic, type Outcome } from '../../src/traffic';
import { UNLIMITED } from '../../src/world';

const target = targetOfFile(() => openOwnedTarget('procfaults'));

function expectFast503s(outcomes: Outcome[]) {
  const unavailable = outcomes.filter((o) => o.status === 503);
  expect(unavailable.length).toBeGreaterThan(0);
  for (const o of unavailable) {
    expect([o.body?.error, o.retryAfter]).toEqual(['service_unavailable', expect.stringMatching(/^\d+$/)]);
  }
  // Connection refused or reset, or the breaker open: the gateway answers at once, never after a timeout.
  expect(Math.max(...unavailable.map((o) => o.ms))).toBeLessThan(2_500);
}

describe('a service process killed mid-traffic', () => {
  it('posts-service: 503 at once while it is down, no request hangs, nothing written before the kill is lost', async () => {
    const { world, owned } = target();
    const { member: author, as, categoryId } = await world.writer();
    const traffic = runTraffic(4, postAndList(categoryId, 'Written under fire', 50), as);
    // Kill only once something has been written: a fixed head start wrote nothing on a loaded machine.
    await waitFor(() => traffic.outcomes.some((o) => o.op === 'create' && o.status === 201), {
      timeoutMs: 20_000,
      what: 'a post written before the kill',
    });
    await owned.services.posts.kill();
    const killedAt = Date.now();
    await sleep(2_000);
    await owned.services.posts.start();
    // The breaker lets a trial request through within 5 s and closes on its success.
    await waitFor(
      () => traffic.outcomes.some((o) => o.op === 'create' && o.status === 201 && o.at > killedAt + 2_000),
      {
        timeoutMs: 20_000,
        what: 'a post written after the restart',
      },
    );
    await sleep(500);
    const outcomes = await traffic.stop();

    expect(outcomes.filter((o) => o.status === 0)).toEqual([]);
    expect([...new Set(outcomes.map((o) => o.status))].sort()).toEqual([200, 201, 503]);
    expectFast503s(outcomes);
    const written = outcomes.filter((o) => o.op === 'create' && o.status === 201).map((o) => o.body.data);
    expect(written.filter((p) => Date.parse(p.created_at) < killedAt).length).toBeGreaterThan(0);
    for (const post of written) {
      const read = expectStatus(await as('GET', `/api/v1/posts/${post.id}`), 200).body.data;
      expect([read.id, read.title]).toEqual([post.id, post.title]);
    }
    // Their events were not lost either: the author's post count catches up with the posts that exist.
    const total = expectStatus(await as('GET', `/api/v1/posts?author=${author.id}&limit=1`), 200).body
      .pagination.total_items as number;
    expect(total).toBeGreaterThanOrEqual(written.length);
    await profileWhen(as, author.id, (u) => u.stats.posts === total, 20_000);
  }, 60_000);

  it('users-service: cached keys keep reaching other services, the rest gets 503 at once, and it recovers', async () => {
    const { world, owned } = target();
    const member = await world.member();
    const as = world.as(member);
    const fresh = await createKeyWithSession(member.browser, target().baseUrl, {
      name: 'unseen',
      scopes: ['read'],
    });
    expectStatus(await as('GET', '/api/v1/posts'), 200); // the gateway now holds this key in its cache

    await owned.services.users.kill();
    try {
      expectStatus(await as('GET', '/api/v1/posts'), 200);
      const me = await as('GET', '/api/v1/users/me');
      expectError(me, 503, 'service_unavailable');
      // A key the gateway has not seen cannot be verified: counted per address, then a fast 503.
      const unseen = await world.call('GET', '/api/v1/posts', { key: fresh.key, ip: member.ip });
      expectError(unseen, 503, 'service_unavailable');
      expect(Math.max(me.ms, unseen.ms)).toBeLessThan(2_500);
    } finally {
      await owned.services.users.start();
    }
    await waitFor(async () => (await as('GET', '/api/v1/users/me')).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: 'users-service behind the gateway again',
    });
  }, 60_000);
});

describe('posts-service killed after committing a keyed POST, before answering it', () => {
  it('the retry with the same Idempotency-Key gets the first answer: one post, one event', async () => {
    const { world, owned } = target();
    const { member: author, as, categoryId } = await world.writer();
    const title = `Committed, never answered ${Date.now()}`;
    const send = () =>
      as('POST', '/api/v1/posts', {
        body: { title, content: 'The answer was lost with the process.', category_id: categoryId },
        headers: { 'idempotency-key': CRASH_AFTER_COMMIT_KEY },
      });
    const lost = await send();
    expectError(lost, 503, 'service_unavailable');
    await waitFor(() => !owned.services.posts.running, { timeoutMs: 10_000, what: 'posts-service gone' });
    await owned.services.posts.start();

    // The breaker lets a trial through within 5 s; until then the retry is a fast 503.
    let retry = await send();
    await waitFor(
      async () => {
        if (retry.status === 503) retry = await send();
        return retry.status !== 503;
      },
      { timeoutMs: 20_000, intervalMs: 250, what: 'the retry answered' },
    );
    expectStatus(retry, 201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.title).toBe(title);
    const mine = expectStatus(await as('GET', `/api/v1/posts?author=${author.id}&limit=100`), 200).body;
    expect(mine.data.filter((p: { title: string }) => p.title === title)).toHaveLength(1);
    // The one post's event went out once: the author's count is 1, and stays 1.
    await profileWhen(as, author.id, (u) => u.stats.posts === 1, 20_000);
  }, 60_000);
});

describe('webhook-service killed between fan-out and delivery', () => {
  it('delivers every event after the restart, each under one webhook-id, including attempts cut off mid-flight', async () => {
    const { world, receiver, owned } = target();
    const watcher = await world.member({ plan: UNLIMITED });
    const hook = await subscribe(world.as(watcher), receiver, 'crash', ['post.created']);
    const author = world.as(await world.member({ plan: UNLIMITED }));
    const categoryId = await world.category();

    // A ping answered in time puts the new endpoint in the fast lane (DESIGN.md §21), where it may
    // have 10 attempts in flight.
    const ping = expectStatus(await world.as(watcher)('POST', `/api/v1/webhooks/${hook.id}/test`), 200);
    expect(ping.body.data.status).toBe('succeeded');
    // The receiver takes requests and never answers: 10 attempts in flight (the per-endpoint cap),
    // the rest fanned out and waiting their turn.
    receiver.setMode({ kind: 'hold' });
    const before = [];
    for (let i = 0; i < 14; i++)
      before.push(await createPost(author, categoryId, { title: `Before crash ${i}` }));
    await waitFor(
      async () => {
        const pending = await world.as(watcher)(
          'GET',
          `/api/v1/webhooks/${hook.id}/deliveries?status=pending`,
        );
        return receiver.heldCount === 10 && pending.body?.pagination?.total_items === 14;
      },
      { timeoutMs: 15_000, what: '14 deliveries stored, 10 of them in flight' },
    );
    const inFlight = new Set(receiver.received.filter((r) => r.endpoint === 'crash').map((r) => r.webhookId));

    await owned.services.webhooks.kill();
    receiver.setMode({ kind: 'ok' });
    // Events keep coming while it is down; they wait in its queue.
    const during = [];
    for (let i = 0; i < 3; i++)
      during.push(await createPost(author, categoryId, { title: `During crash ${i}` }));
    const down = await world.as(watcher)('GET', '/api/v1/webhooks');
    expectError(down, 503, 'service_unavailable');
    await owned.services.webhooks.start();

    // Attempts cut off mid-flight are tried again when their lease (60 s) runs out; the rest at once.
    const posts = [...before, ...during];
    await waitFor(
      () => {
        const delivered = new Set(receiver.acknowledged('crash').map((d) => d.data.id));
        return posts.every((p) => delivered.has(p.id));
      },
      { timeoutMs: 100_000, intervalMs: 500, what: `all ${posts.length} posts delivered after the restart` },
    );
    const delivered = receiver.acknowledged('crash');
    for (const post of posts) expect(delivered.filter((d) => d.data.id === post.id)).toHaveLength(1);
    // The interrupted attempts came back under the webhook-id they first had.
    for (const id of inFlight) expect(delivered.some((d) => d.webhookId === id)).toBe(true);
    // The service records an attempt's outcome after the receiver has answered it, so the last
    // acknowledgement can be seen here a moment before its delivery reads `succeeded`.
    const statuses = async () => {
      const log = await world.as(watcher)('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=100`);
      const entries = expectStatus(log, 200).body.data as { event: string; status: string }[];
      // The ping that put the endpoint in the fast lane is in the log too.
      return entries.filter((d) => d.event !== 'ping').map((d) => d.status);
    };
    await waitFor(async () => (await statuses()).every((s) => s === 'succeeded'), {
      timeoutMs: 5_000,
      what: 'every delivery recorded as succeeded',
    }).catch(() => undefined);
    expect(await statuses()).toEqual(Array(posts.length).fill('succeeded'));
  }, 150_000);
});
