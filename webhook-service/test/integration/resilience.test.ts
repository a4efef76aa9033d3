import { waitFor } from '@community/test-harness';
import { startReceiver } from '../support/receiver';
import { owner, startWebhookService } from '../support/webhooks-harness';

const DATA = { id: 1, title: 'Hello', author_id: 3 };

it('loses nothing when the service stops between fan-out and delivery', async () => {
  // dispatch: false is a process that dies right after storing the deliveries and acking the event
  const h = await startWebhookService('crash', {}, { dispatch: false });
  const r = await startReceiver();
  try {
    const endpoint = (
      await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } })
    ).body.data;
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await h.publish('post.created', { ...DATA, id: i + 1 }));
    await waitFor(async () => (await h.sql`select count(*)::int as n from deliveries`)[0]!.n === 5, {
      what: 'fan-out',
    });
    expect(r.received).toHaveLength(0);
    await h.restart();
    await waitFor(() => r.received.length === 5, { what: 'the five deliveries after restart' });
    expect(new Set(r.received.map((x) => JSON.parse(x.body).data.id))).toEqual(new Set([1, 2, 3, 4, 5]));
    // The receiver has its answer before the attempt is recorded: wait for the record, not a moment.
    await waitFor(
      async () => {
        const log = (await h.call(owner, 'GET', `/webhooks/${endpoint.id}/deliveries`)).body.data;
        return log.length === 5 && log.every((d: { status: string }) => d.status === 'succeeded');
      },
      { what: 'five deliveries recorded as succeeded' },
    );
    // the same event delivered by the broker again adds no delivery and sends nothing twice
    await h.republish(events[0]!);
    await h.publish('post.created', { ...DATA, id: 6 });
    await waitFor(() => r.received.length === 6, { what: 'the marker event' });
    expect(JSON.parse(r.received[5]!.body).data.id).toBe(6);
    expect((await h.sql`select count(*)::int as n from deliveries`)[0]!.n).toBe(6);
  } finally {
    await r.close();
    await h.stop();
  }
});

it('holds at most 10 deliveries in flight to one slow endpoint', async () => {
  const h = await startWebhookService('inflight');
  let open = 0;
  let most = 0;
  const r = await startReceiver(() => {
    open++;
    most = Math.max(most, open);
    setTimeout(() => open--, 1_000);
    return { status: 200, delayMs: 1_000 };
  });
  try {
    await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } });
    for (let i = 0; i < 15; i++) await h.publish('post.created', { ...DATA, id: 100 + i });
    await waitFor(() => r.received.length === 15, { what: 'all 15 deliveries', timeoutMs: 10_000 });
    expect(most).toBe(10);
  } finally {
    await r.close();
    await h.stop();
  }
}, 20_000);

it('disables an endpoint that has failed without a success for 5 days', async () => {
  const h = await startWebhookService('fivedays');
  const r = await startReceiver(() => ({ status: 500 }));
  try {
    const endpoint = (
      await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } })
    ).body.data;
    await h.sql`update endpoints set failing_since = now() - interval '5 days 1 minute' where id = ${endpoint.id}`;
    await h.publish('post.created', DATA);
    await waitFor(
      async () => (await h.call(owner, 'GET', `/webhooks/${endpoint.id}`)).body.data.enabled === false,
      {
        what: 'the endpoint to be disabled',
      },
    );
    expect((await h.call(owner, 'GET', `/webhooks/${endpoint.id}`)).body.data.disabled_reason).toBe(
      'no successful delivery for 5 days',
    );
    // a success clears the failing streak: enabling it again starts afresh
    const enabled = await h.call(owner, 'PUT', `/webhooks/${endpoint.id}`, { body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
  } finally {
    await r.close();
    await h.stop();
  }
});

it('sends a new delivery as soon as its event is stored, without waiting for the next poll', async () => {
  const h = await startWebhookService('prompt', {}, { pollIntervalMs: 60_000 });
  const r = await startReceiver();
  try {
    await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } });
    const started = Date.now();
    await h.publish('post.created', DATA);
    await waitFor(() => r.received.length === 1, { what: 'the delivery', timeoutMs: 20_000 });
    // The next poll is 60 s away: anything well under that was woken by the fan-out.
    expect(Date.now() - started).toBeLessThan(20_000);
  } finally {
    await r.close();
    await h.stop();
  }
});
