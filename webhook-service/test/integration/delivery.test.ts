import { Webhook } from 'standardwebhooks';
import { waitFor } from '@community/test-harness';
import { receiversClosedAfterAll, type Received } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

let h: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('delivery');
});
afterAll(() => h.stop());

const receiver = receiversClosedAfterAll();

async function subscribe(url: string, events: string[]) {
  const res = await h.call(owner, 'POST', '/webhooks', { body: { url, events } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number; secret: string };
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;

const deliveries = async (endpointId: number, query = '') =>
  (await h.call(owner, 'GET', `/webhooks/${endpointId}/deliveries${query}`)).body;

const DATA = {
  'post.created': { id: 11, title: 'Hello', author_id: 3 },
  'post.updated': { id: 11, title: 'Hello again', author_id: 3, changed: ['title'] },
  // Another post: deleting post 11 would redact its events still waiting to go out (DESIGN.md §20).
  'post.deleted': { id: 12, author_id: 3 },
  'comment.created': { id: 5, post_id: 11, author_id: 4, parent_id: null },
  'user.registered': { id: 3, username: 'ada', display_name: 'Ada' },
} as const;

describe('delivery', () => {
  it('delivers each of the five public events with the exact body and a valid Standard Webhooks signature', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url, Object.keys(DATA));
    const sent = [];
    for (const [event, data] of Object.entries(DATA)) sent.push(await h.publish(event, data));
    await waitFor(() => r.received.length >= 5, { what: 'five deliveries' });
    for (const envelope of sent) {
      const got = r.received.find((x) => JSON.parse(x.body).event === envelope.event)!;
      expect(got.body).toBe(
        JSON.stringify({ event: envelope.event, timestamp: envelope.timestamp, data: envelope.data }),
      );
      expect(verify(endpoint.secret, got)).toEqual({
        event: envelope.event,
        timestamp: envelope.timestamp,
        data: envelope.data,
      });
      expect(got.headers['content-type']).toBe('application/json');
      // The event's own id (DESIGN.md §14): msg_ and its ULID.
      expect(got.headers['webhook-id']).toMatch(/^msg_[0-9A-Z]{26}$/);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    // The receiver has the body before the dispatcher has written down its answer: wait for that write.
    await waitFor(
      async () =>
        (await deliveries(endpoint.id)).data.every((d: { status: string }) => d.status !== 'pending'),
      { what: 'the five attempts recorded' },
    );
    const log = await deliveries(endpoint.id);
    expect(log.data).toHaveLength(5);
    expect(log.data[0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      response_status: 204,
      next_attempt_at: null,
    });
  });

  it('sends only subscribed events and never internal ones', async () => {
    const r = await receiver();
    await subscribe(r.url, ['comment.created']);
    await h.publish('post.created', DATA['post.created']);
    await h.publish('post.liked', { post_id: 1, user_id: 2, author_id: 3 });
    const marker = await h.publish('comment.created', DATA['comment.created']);
    await waitFor(() => r.received.length >= 1, { what: 'the comment event' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received.map((x) => JSON.parse(x.body).event)).toEqual(['comment.created']);
    expect(JSON.parse(r.received[0]!.body).timestamp).toBe(marker.timestamp);
  });

  it('retries with the same webhook-id until the endpoint answers 2xx', async () => {
    const r = await receiver((_x, i) => ({ status: i === 0 ? 500 : 200 }));
    const endpoint = await subscribe(r.url, ['post.deleted']);
    await h.publish('post.deleted', DATA['post.deleted']);
    await waitFor(() => r.received.length >= 2, { what: 'the retry' });
    expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    await waitFor(async () => (await deliveries(endpoint.id)).data[0]?.status === 'succeeded', {
      what: 'success',
    });
    expect((await deliveries(endpoint.id)).data[0]).toMatchObject({ attempts: 2, response_status: 200 });
  });

  it("honours the receiver's Retry-After on 429 and 503", async () => {
    const slowSchedule = await startWebhookService('retryafter', { WEBHOOK_RETRY_SCHEDULE: '60' });
    try {
      const r = await receiver((_x, i) =>
        i === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 200 },
      );
      const res = await slowSchedule.call(owner, 'POST', '/webhooks', {
        body: { url: r.url, events: ['post.created'] },
      });
      await slowSchedule.publish('post.created', DATA['post.created']);
      await waitFor(() => r.received.length >= 2, { what: 'the retry after 1 s', timeoutMs: 20_000 });
      const gap = r.received[1]!.at - r.received[0]!.at;
      expect(gap).toBeGreaterThanOrEqual(900);
      // The schedule alone would wait 60 s; the margin is for a busy machine.
      expect(gap).toBeLessThan(20_000);
      expect(res.status).toBe(201);
    } finally {
      await slowSchedule.stop();
    }
  });

  it('fails after the last attempt of the schedule, and a redelivery sends it again', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const endpoint = await subscribe(r.url, ['user.registered']);
    await h.publish('user.registered', DATA['user.registered']);
    await waitFor(async () => (await deliveries(endpoint.id, '?status=failed')).data.length === 1, {
      what: 'failed delivery',
    });
    const [failed] = (await deliveries(endpoint.id, '?status=failed')).data;
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 3,
      response_status: 500,
      next_attempt_at: null,
    });
    expect(r.received).toHaveLength(3);
    r.respondWith(() => ({ status: 200 }));
    const redone = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/deliveries/${failed.id}/redeliver`);
    expect(redone.status).toBe(200);
    expect(redone.body.data.status).toBe('pending');
    await waitFor(async () => (await deliveries(endpoint.id)).data[0]?.status === 'succeeded', {
      what: 'redelivered',
    });
    expect(r.received).toHaveLength(4);
    expect(r.received[3]!.headers['webhook-id']).toBe(failed.message_id);
    expect((await deliveries(endpoint.id)).data[0].attempts).toBe(4);
    expect((await h.call(owner, 'POST', `/webhooks/${endpoint.id}/deliveries/999999/redeliver`)).status).toBe(
      404,
    );
  });

  it('signs with both secrets during a rotation', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url, ['post.updated']);
    const rotated = (await h.call(owner, 'POST', `/webhooks/${endpoint.id}/rotate-secret`)).body.data;
    await h.publish('post.updated', DATA['post.updated']);
    await waitFor(() => r.received.length >= 1, { what: 'delivery' });
    const got = r.received[0]!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(endpoint.secret, got)).toBeTruthy();
    expect(verify(rotated.secret, got)).toBeTruthy();
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const r = await receiver(() => ({ status: 410 }));
    const endpoint = await subscribe(r.url, ['post.created']);
    await h.publish('post.created', DATA['post.created']);
    await waitFor(
      async () => (await h.call(owner, 'GET', `/webhooks/${endpoint.id}`)).body.data.enabled === false,
      { what: 'disabled' },
    );
    const shown = (await h.call(owner, 'GET', `/webhooks/${endpoint.id}`)).body.data;
    expect(shown.disabled_reason).toMatch(/410/);
    expect((await deliveries(endpoint.id)).data[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      response_status: 410,
    });
    await h.publish('post.created', DATA['post.created']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received).toHaveLength(1);
  });

  it('does not let an endpoint that takes 8 s delay a fast one', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 8_000 }));
    const fast = await receiver();
    await subscribe(slow.url, ['comment.created']);
    await subscribe(fast.url, ['comment.created']);
    const started = Date.now();
    await h.publish('comment.created', { ...DATA['comment.created'], id: 99 });
    await waitFor(() => fast.received.some((x) => JSON.parse(x.body).data.id === 99), {
      what: 'the fast endpoint',
    });
    // Well before the slow endpoint's 8 s (the margin is for a busy machine).
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(slow.received.some((x) => JSON.parse(x.body).data.id === 99)).toBe(true);
  }, 20_000);
});
