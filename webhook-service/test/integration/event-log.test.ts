import { Webhook } from 'standardwebhooks';
import {
  eventLogEntrySchema,
  MAX_REPLAY_EVENTS,
  pingResultSchema,
  timeListEnvelope,
} from '@community/contracts';
import { waitFor } from '@community/test-harness';
import { pruneOlderThan } from '../../src/db/events.repository';
import { messageIdOf } from '../../src/domain/message-id';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, stranger, type WebhooksHarness } from '../support/webhooks-harness';

// DESIGN.md §14: one webhook-id per event, GET /events, test pings, replays, 30 days of retention.

let h: WebhooksHarness;
const receiver = receiversClosedAfterAll();
beforeAll(async () => {
  h = await startWebhookService('event-log');
});
afterAll(() => h.stop());

async function subscribe(url: string, events = ['post.created', 'post.deleted']) {
  const res = await h.call(owner, 'POST', '/webhooks', { body: { url, events } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; secret: string };
}

const logged = (eventId: string) =>
  waitFor(async () => (await h.sql`select 1 from events where event_id = ${eventId}`).length === 1, {
    what: `${eventId} logged`,
  });

describe('one webhook-id per event', () => {
  it('gives three endpoints the same webhook-id, and /events lists the event under it', async () => {
    const receivers = [await receiver(), await receiver(), await receiver()];
    for (const r of receivers) await subscribe(r.url);
    const envelope = await h.publish('post.created', { id: 1, title: 'One id', author_id: 7 });
    await waitFor(() => receivers.every((r) => r.received.length === 1), { what: 'three deliveries' });
    const ids = receivers.map((r) => r.received[0]!.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set([messageIdOf(envelope.id)]));
    expect(ids[0]).toMatch(/^msg_[0-9A-Z]{26}$/);

    const res = await h.call(owner, 'GET', '/events?types=post.created&limit=100');
    const entries = timeListEnvelope(eventLogEntrySchema).parse(res.body).data;
    expect(entries.find((e) => e.id === ids[0])).toEqual({
      id: ids[0],
      event: 'post.created',
      timestamp: envelope.timestamp,
      data: { id: 1, title: 'One id', author_id: 7 },
    });
  });

  it("walks /events after an id, each event once in the log's order, while events keep coming", async () => {
    const first = await h.publish('post.deleted', { id: 100, author_id: 7 });
    await logged(first.id);
    const arrived = async (envelopes: { id: string }[]) => {
      for (const e of envelopes) await logged(e.id);
      return envelopes.map((e) => messageIdOf(e.id));
    };
    const batch = [];
    for (let i = 0; i < 12; i++) batch.push(await h.publish('post.deleted', { id: 101 + i, author_id: 7 }));
    const published = await arrived(batch);
    const seen: string[] = [];
    let res = await h.call(owner, 'GET', `/events?types=post.deleted&limit=5&after=${messageIdOf(first.id)}`);
    for (let n = 0; ; n++) {
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      const next = res.body.pagination.next_cursor;
      if (!next) break;
      // More events arrive while the walk goes on: each is seen once, after those before it.
      if (n < 3)
        published.push(...(await arrived([await h.publish('post.deleted', { id: 200 + n, author_id: 7 })])));
      res = await h.call(owner, 'GET', `/events?types=post.deleted&limit=5&cursor=${next}`);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...published].sort());
    // The order is the log's: the order the events were stored in, which the walk follows.
    const stored = await h.sql<
      { id: string }[]
    >`select id from events where id = any(${published}) order by seq`;
    expect(seen).toEqual(stored.map((row) => row.id));
  });

  it('refuses an unknown after, junk types and a cursor with page', async () => {
    for (const query of [
      'after=msg_NOPE',
      'after=evt_1',
      'types=post.created,nope',
      'types=',
      'cursor=x&page=1',
    ]) {
      const res = await h.call(owner, 'GET', `/events?${query}`);
      expect([query, res.status, res.body.error]).toEqual([query, 400, 'validation_error']);
    }
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('sends one ping signed like every delivery, and logs it', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url);
    const res = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    expect(pingResultSchema.parse(res.body.data)).toMatchObject({
      status: 'succeeded',
      response_status: 204,
    });
    expect(r.received).toHaveLength(1);
    const verified = new Webhook(endpoint.secret).verify(
      r.received[0]!.body,
      r.received[0]!.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({ event: 'ping', data: { webhook_id: endpoint.id } });
    const log = (await h.call(owner, 'GET', `/webhooks/${endpoint.id}/deliveries`)).body.data;
    expect(log).toMatchObject([{ event: 'ping', status: 'succeeded', attempts: 1, next_attempt_at: null }]);
    expect((await h.call(stranger, 'POST', `/webhooks/${endpoint.id}/test`)).status).toBe(404);
  });

  it('answers a failing receiver with the failure, and never retries it', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const endpoint = await subscribe(r.url);
    const res = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(res.body.data).toMatchObject({ status: 'failed', response_status: 500 });
    await new Promise((resolve) => setTimeout(resolve, 800)); // longer than the test schedule (0.2 s, 0.2 s)
    expect(r.received).toHaveLength(1);
    const hanging = await receiver(() => ({ status: 204, delayMs: 60_000 }));
    const slow = await subscribe(hanging.url);
    const started = Date.now();
    const timedOut = await h.call(owner, 'POST', `/webhooks/${slow.id}/test`);
    expect(timedOut.body.data).toMatchObject({ status: 'failed', response_status: null });
    expect(timedOut.body.data.error).toMatch(/timeout/);
    expect(Date.now() - started).toBeLessThan(5_500);
  }, 20_000);
});

describe('POST /webhooks/{id}/replay', () => {
  it('redelivers exactly the subscribed events of the window under their original ids', async () => {
    const r = await receiver();
    const since = new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const endpoint = await subscribe(r.url, ['post.created']);
    const wanted = [
      await h.publish('post.created', { id: 301, title: 'a', author_id: 1 }),
      await h.publish('post.created', { id: 302, title: 'b', author_id: 1 }),
    ];
    const unwanted = await h.publish('comment.created', {
      id: 9,
      post_id: 301,
      author_id: 1,
      parent_id: null,
    });
    await logged(unwanted.id);
    await waitFor(() => r.received.length >= 2, { what: 'the first deliveries' });
    const firstIds = r.received.map((x) => x.headers['webhook-id']);
    r.received.length = 0;

    const res = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/replay`, {
      body: { since, events: ['post.created', 'comment.created'] },
    });
    expect([res.status, res.body.data.queued]).toEqual([202, expect.any(Number)]);
    const mine = wanted.map((e) => messageIdOf(e.id));
    await waitFor(() => mine.every((id) => r.received.some((x) => x.headers['webhook-id'] === id)), {
      what: 'the replayed deliveries',
    });
    const replayed = r.received.map((x) => x.headers['webhook-id']);
    expect(replayed.filter((id) => mine.includes(id as string)).sort()).toEqual([...mine].sort());
    expect(firstIds.filter((id) => mine.includes(id as string)).sort()).toEqual([...mine].sort());
    expect(r.received.every((x) => JSON.parse(x.body).event === 'post.created')).toBe(true);

    const other = await h.call(stranger, 'POST', `/webhooks/${endpoint.id}/replay`, { body: { since } });
    expect(other.status).toBe(404);
    for (const body of [{}, { since: 'yesterday' }, { since, until: since }, { since, events: ['nope'] }]) {
      const bad = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/replay`, { body });
      expect([JSON.stringify(body), bad.status]).toEqual([JSON.stringify(body), 400]);
    }
  });

  it("queues a large replay behind nobody else's deliveries", async () => {
    const slow = await receiver(() => ({ status: 204, delayMs: 300 }));
    const busy = await subscribe(slow.url, ['user.registered']);
    await h.sql`
      insert into events (id, event_id, event, body, created_at)
      select 'msg_fair' || i, 'evt_fair' || i, 'user.registered',
             '{"event":"user.registered","timestamp":"2026-01-01T00:00:00Z","data":{"id":1,"username":"u","display_name":"U"}}',
             now() - interval '10 minutes'
      from generate_series(1, 300) i`;
    const since = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const replayed = await h.call(owner, 'POST', `/webhooks/${busy.id}/replay`, { body: { since } });
    expect(replayed.body.data.queued).toBeGreaterThanOrEqual(300);

    const other = await receiver();
    const res = await h.call(stranger, 'POST', '/webhooks', {
      body: { url: other.url, events: ['post.created'] },
    });
    expect(res.status).toBe(201);
    const started = Date.now();
    await h.publish('post.created', { id: 999, title: 'not behind the replay', author_id: 2 });
    await waitFor(() => other.received.length === 1, { what: "the other user's delivery", timeoutMs: 3000 });
    // 300 replayed deliveries at 10 in flight and 0.3 s each take 9 s; the other one came at once.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(slow.received.length).toBeLessThan(300);
    await h.sql`update deliveries set status = 'cancelled' where endpoint_id = ${busy.id} and status = 'pending'`;
    await h.sql`delete from events where id like 'msg_fair%'`;
  }, 20_000);

  it(`refuses a window of more than ${MAX_REPLAY_EVENTS} events with 400, saying how many`, async () => {
    const endpoint = await subscribe('http://127.0.0.1:9/hook', ['user.registered']);
    await h.sql`
      insert into events (id, event_id, event, body, created_at)
      select 'msg_bulk' || i, 'evt_bulk' || i, 'user.registered', '{}', now() - interval '1 hour'
      from generate_series(1, ${MAX_REPLAY_EVENTS + 5}) i`;
    const since = new Date(Date.now() - 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const res = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/replay`, { body: { since } });
    expect([res.status, res.body.details.field]).toEqual([400, 'since']);
    expect(res.body.message).toContain(`${MAX_REPLAY_EVENTS + 5} events`);
    expect(await h.sql`select count(*)::int as n from deliveries where endpoint_id = ${endpoint.id}`).toEqual(
      [{ n: 0 }],
    );
    await h.sql`delete from events where id like 'msg_bulk%'`;
  });
});

describe('retention', () => {
  it('removes events and deliveries older than 30 days, and nothing younger', async () => {
    const endpoint = await subscribe('http://127.0.0.1:9/hook');
    const at = (days: number) => new Date(Date.now() - days * 86_400_000);
    await h.sql`
      insert into events (id, event_id, event, body, created_at) values
        ('msg_old', 'evt_old', 'post.created', '{}', ${at(30.01)}),
        ('msg_young', 'evt_young', 'post.created', '{}', ${at(29.99)})`;
    await h.sql`
      insert into deliveries (endpoint_id, event_id, event, body, message_id, status, created_at) values
        (${endpoint.id}, 'evt_old', 'post.created', '{}', 'msg_old', 'succeeded', ${at(30.01)}),
        (${endpoint.id}, 'evt_young', 'post.created', '{}', 'msg_young', 'succeeded', ${at(29.99)})`;
    const removed = await pruneOlderThan(h.sql, 30, 1);
    expect(removed).toEqual({ events: 1, deliveries: 1 });
    expect(await h.sql`select id from events where id in ('msg_old', 'msg_young')`).toEqual([
      { id: 'msg_young' },
    ]);
    expect(
      await h.sql`select message_id from deliveries where message_id in ('msg_old', 'msg_young')`,
    ).toEqual([{ messageId: 'msg_young' }]);
  });
});
