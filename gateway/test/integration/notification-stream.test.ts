import { MAX_STREAMS_PER_ACCOUNT, notificationSchema } from '@community/contracts';
import { actor, openEventStream, waitFor, type OpenedStream } from '@community/test-harness';
import { adminWithKey, gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §13 through the gateway: GET /api/v1/notifications/stream, relayed unbuffered, with no
// timeout and outside the breaker; at most 5 per account; closed when its key or account stops. All
// on one channel to users-service (proxy/stream-channel.ts), which a client leaving, a stream
// refused or users-service restarting leave as a connection a stream did.

let stack: Stack;
let categoryId: number;
let adminKey: string;

beforeAll(async () => {
  // A short upstream timeout and stall watch: a stream must outlive both.
  stack = await startStack(
    'notification-stream',
    { UPSTREAM_TIMEOUT_MS: '1000', UPSTREAM_STALL_MS: '300' },
    { NOTIFICATION_HEARTBEAT_SECONDS: '1' },
  );
  adminKey = (await adminWithKey(stack)).key;
  const category = await gw(stack, 'POST', '/api/v1/categories', {
    key: adminKey,
    body: { name: 'Streams' },
  });
  categoryId = category.body.data.id;
}, 60_000);
afterAll(() => stack.stop());

const opened: OpenedStream[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

async function stream(key: string, headers: Record<string, string> = {}) {
  const s = await openEventStream(`${stack.gateway}/api/v1/notifications/stream`, {
    authorization: `Bearer ${key}`,
    ...headers,
  });
  opened.push(s);
  return s;
}

/** A member on the pro plan (polling in these tests stays far within budget). */
async function member() {
  const m = await memberWithKey(stack);
  await stack.users(actor(1, 'admin', ['admin']), 'PUT', `/users/${m.id}/plan`, { body: { plan: 'pro' } });
  return m;
}

async function postBy(key: string) {
  const res = await gw(stack, 'POST', '/api/v1/posts', {
    key,
    body: { title: 'Streams', content: 'Tell me when', category_id: categoryId },
  });
  return res.body.data.id as number;
}

/** A reply notification (an author's first post also earns a badge, which comes too). */
const isReply = (e: { event?: string; data?: string }) =>
  e.event === 'notification' && JSON.parse(e.data!).kind === 'reply';

const comment = (key: string, postId: number, content = 'A reply') =>
  gw(stack, 'POST', `/api/v1/posts/${postId}/comments`, { key, body: { content } });

/** Resolves when the stream ends, or fails after `ms`. */
async function closedWithin(live: OpenedStream, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      live.ended,
      new Promise((_, fail) => (timer = setTimeout(() => fail(new Error(`still open after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A gauge of users-service's own /metrics. */
async function usersGauge(name: string): Promise<number> {
  const text = await (await fetch(`${stack.usersUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return Number(line?.split(' ').pop() ?? NaN);
}

const gaugeReaches = (name: string, value: number) =>
  waitFor(async () => (await usersGauge(name)) === value || undefined, { what: `${name} at ${value}` });

/** A post by the author and a reply to it: the reply's id. */
async function postWithReply(authorKey: string, replierKey: string) {
  const reply = await comment(replierKey, await postBy(authorKey));
  return reply.body.data.id as number;
}

const replies = (s: OpenedStream) => s.notifications().filter((n) => n.kind === 'reply');

/**
 * Opens the stream with `Last-Event-ID` and, as an EventSource does, again whenever it ends (a
 * users-service just started ends the streams it took before it heard the bus), until `done`.
 */
async function resume(key: string, lastEventId: string, done: (s: OpenedStream) => boolean) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const s = await stream(key, { 'last-event-id': lastEventId });
    expect(s.status).toBe(200);
    const outcome = await Promise.race([
      s.next(() => done(s), 5_000).then(() => 'done'),
      s.ended.then(() => 'ended'),
    ]);
    if (outcome === 'done') return s;
    lastEventId = s.events.filter((e) => e.event === 'notification').at(-1)?.id ?? lastEventId;
  }
  throw new Error('the stream never resumed');
}

describe('the notification stream through the gateway', () => {
  it('gets a reply within a second, unbuffered, counted once, past the upstream timeout', async () => {
    const [author, replier] = [await member(), await member()];
    const postId = await postBy(author.key);
    const live = await stream(author.key);
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(live.headers['x-ratelimit-limit']).toBe('5000');
    // The first line comes through at once: nothing buffers the stream.
    await live.next((e) => e.comment === 'open', 1_000);

    const sent = Date.now();
    const reply = await comment(replier.key, postId);
    const event = await live.next(isReply, 1_000);
    expect(Date.now() - sent).toBeLessThan(1_000);
    expect(notificationSchema.parse(JSON.parse(event.data!))).toMatchObject({
      kind: 'reply',
      actor: { id: replier.id },
      subject: { type: 'comment', id: reply.body.data.id, post_id: postId, title: 'Streams' },
    });

    // Three heartbeats later the stream is still there: past UPSTREAM_TIMEOUT_MS, no stall verdict.
    const beats = live.events.length;
    await live.next((e) => e.comment === 'keep-alive', 3_000, beats);
    await waitFor(
      () => live.events.slice(beats).filter((e) => e.comment === 'keep-alive').length >= 2 || undefined,
      {
        what: 'two more heartbeats',
      },
    );
    expect(stack.gatewayService().breakers.users!.opened).toBe(false);
    const me = await gw(stack, 'GET', '/api/v1/users/me', { key: author.key });
    expect(me.status).toBe(200);
    // Opening the stream cost one request, however long it has been open.
    const used = 5000 - Number(live.headers['x-ratelimit-remaining']);
    expect(5000 - Number(me.headers.get('x-ratelimit-remaining'))).toBe(used + 1);
  });

  it('replays with Last-Event-ID exactly what was missed, then goes on live', async () => {
    const [author, replier] = [await member(), await member()];
    const postId = await postBy(author.key);
    const first = await stream(author.key);
    await comment(replier.key, postId, 'one');
    const seen = await first.next(isReply);
    first.close();
    await comment(replier.key, postId, 'two');
    await comment(replier.key, postId, 'three');
    await waitFor(
      async () =>
        (await gw(stack, 'GET', '/api/v1/notifications', { key: author.key })).body.data.length === 4 ||
        undefined,
      { what: 'three replies and a badge stored' },
    );
    const again = await stream(author.key, { 'last-event-id': seen.id! });
    await again.next(() => again.notifications().length === 2);
    expect(
      again
        .notifications()
        .map((n) => n.subject.excerpt)
        .sort(),
    ).toEqual(['three', 'two']);
    await comment(replier.key, postId, 'four');
    await again.next(() => again.notifications().length === 3);
    expect(again.notifications()[2].subject.excerpt).toBe('four');
  });

  it(`refuses a ${MAX_STREAMS_PER_ACCOUNT + 1}th open stream of an account with 429, and admits one when another closes`, async () => {
    const owner = await member();
    const streams = await Promise.all(
      Array.from({ length: MAX_STREAMS_PER_ACCOUNT }, () => stream(owner.key)),
    );
    expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_ACCOUNT).fill(200));
    const sixth = await stream(owner.key);
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBe('5');
    expect(JSON.parse(await sixth.text)).toEqual({
      error: 'rate_limit_exceeded',
      message: `at most ${MAX_STREAMS_PER_ACCOUNT} notification streams may be open per account; close one first`,
      retry_after: 5,
    });
    // Another account is not affected.
    expect((await stream((await member()).key)).status).toBe(200);
    streams[0]!.close();
    await waitFor(async () => ((await stream(owner.key)).status === 200 ? true : undefined), {
      what: 'a slot freed by the close',
    });
  });

  it('refuses a burst of parallel opens beyond the cap, exactly', async () => {
    const owner = await member();
    const burst = await Promise.all(Array.from({ length: 12 }, () => stream(owner.key)));
    const statuses = burst.map((s) => s.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(MAX_STREAMS_PER_ACCOUNT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - MAX_STREAMS_PER_ACCOUNT);
  });

  it('closes the stream within 5 s of its key being revoked', async () => {
    const owner = await member();
    const live = await stream(owner.key);
    await live.next((e) => e.comment === 'open');
    const keys = await stack.users(actor(owner.id, 'member', ['keys']), 'GET', '/keys');
    const keyId = keys.body.data[0].id;
    const revoked = Date.now();
    expect((await stack.users(actor(owner.id, 'member', ['keys']), 'DELETE', `/keys/${keyId}`)).status).toBe(
      200,
    );
    await closedWithin(live, 5_000);
    expect(Date.now() - revoked).toBeLessThan(5_000);
    expect((await stream(owner.key)).status).toBe(401);
  });

  it('closes the stream within 5 s of its account being suspended', async () => {
    const owner = await member();
    const live = await stream(owner.key);
    await live.next((e) => e.comment === 'open');
    const suspended = Date.now();
    const res = await gw(stack, 'PUT', `/api/v1/users/${owner.id}/suspension`, {
      key: adminKey,
      body: { reason: 'testing streams' },
    });
    expect(res.status).toBe(200);
    await closedWithin(live, 5_000);
    expect(Date.now() - suspended).toBeLessThan(5_000);
    expect((await stream(owner.key)).status).toBe(403);
  });

  it('needs a key with read, and shows open streams in /metrics', async () => {
    expect((await openEventStream(`${stack.gateway}/api/v1/notifications/stream`)).status).toBe(401);
    const owner = await member();
    const live = await stream(owner.key);
    await live.next((e) => e.comment === 'open');
    const metrics = await gw(stack, 'GET', '/metrics', { undocumented: true });
    expect(metrics.text).toMatch(/^gateway_streams_open\{[^}]*\} [1-9]/m);
    const service = await (await fetch(`${stack.usersUrl}/metrics`)).text();
    expect(service).toMatch(/^notification_streams_open\{[^}]*\} [1-9]/m);
  });
});

describe('on one channel to users-service (DESIGN.md §18: many streams)', () => {
  it('carries the streams of many clients on one connection, each its own notifications', async () => {
    const [a, b, c, replier] = [await member(), await member(), await member(), await member()];
    const streams = [await stream(a.key), await stream(b.key), await stream(c.key)];
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(streams[0]!.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await gaugeReaches('notification_streams_open', 3);
    expect(await usersGauge('notification_stream_channels_open')).toBe(1);
    const commentOf = [await postWithReply(a.key, replier.key), await postWithReply(b.key, replier.key)];
    for (const [i, s] of streams.slice(0, 2).entries()) {
      await s.next(() => replies(s).length === 1, 5_000);
      expect(replies(s)[0].subject.id).toBe(commentOf[i]);
    }
    await streams[2]!.next((e) => e.comment === 'keep-alive', 3_000);
    expect(replies(streams[2]!)).toEqual([]);
  });

  it('closes the stream in users-service when its client leaves, and the others go on', async () => {
    const [a, b] = [await member(), await member()];
    const [leaving, staying] = [await stream(a.key), await stream(b.key)];
    await gaugeReaches('notification_streams_open', 2);
    leaving.close();
    await gaugeReaches('notification_streams_open', 1);
    await staying.next((e) => e.comment === 'keep-alive', 3_000, staying.events.length);
  });

  it('answers a stream users-service refuses with its error, in the envelope, and the others go on', async () => {
    const [a, b] = [await member(), await member()];
    const staying = await stream(b.key);
    // As long as a request's head may be: it answers its client, and ends nobody else's stream.
    for (const id of ['not-an-id', '9'.repeat(12_000)]) {
      const refused = await stream(a.key, { 'last-event-id': id });
      expect(refused.status).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(await refused.text)).toMatchObject({
        error: 'validation_error',
        details: { field: 'Last-Event-ID' },
      });
    }
    await staying.next((e) => e.comment === 'keep-alive', 3_000, staying.events.length);
    expect(await usersGauge('notification_stream_channels_open')).toBe(1);
  });

  it('ends its streams when users-service restarts; they resume on a new channel with nothing missed', async () => {
    const [a, replier] = [await member(), await member()];
    const first = await stream(a.key);
    await first.next((e) => e.comment === 'open');
    await postWithReply(a.key, replier.key);
    await first.next(() => replies(first).length === 1, 5_000);
    const seen = first.events.filter((e) => e.event === 'notification').at(-1)!.id!;
    const restarting = stack.restartUsers();
    await first.ended;
    await restarting;
    const missed = await postWithReply(a.key, replier.key);
    const resumed = await resume(a.key, seen, (s) => replies(s).length === 1);
    expect(replies(resumed)[0].subject.id).toBe(missed);
    expect(await usersGauge('notification_stream_channels_open')).toBe(1);
  });
});
