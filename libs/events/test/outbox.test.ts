import { testExchange, waitFor } from '@community/test-harness';
import { Registry } from 'prom-client';
import { enqueueEvent } from '../src';
import { startRelay, type RelayRig } from './support/fixtures';

describe('outbox relay', () => {
  const exchange = testExchange('outbox');
  const registry = new Registry();
  let rig: RelayRig;

  beforeAll(async () => {
    rig = await startRelay('outbox', exchange, { registry });
  });

  afterAll(() => rig.close());

  it('publishes an event committed with its transaction, exactly as enqueued', async () => {
    const data = { id: 7, title: 'Héllo 👋 ‏مرحبا', author_id: 3, nested: { snake_case: true } };
    const envelope = await rig.db.sql.begin((tx) => enqueueEvent(tx, 'post.created', data));
    rig.relay.kick();

    const message = await waitFor(
      () => rig.probe.messages.find((m) => m.properties.messageId === envelope.id),
      {
        what: 'the committed event',
      },
    );
    expect(JSON.parse(message.content.toString('utf8'))).toEqual(envelope);
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      event: 'post.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      data,
    });
    expect(message.fields.routingKey).toBe('post.created');
    expect(message.properties).toMatchObject({
      contentType: 'application/json',
      deliveryMode: 2,
      type: 'post.created',
      timestamp: Math.floor(Date.parse(envelope.timestamp) / 1000),
    });
    await waitFor(async () => (await rig.relay.pending()).count === 0, {
      what: 'the row to be marked published',
    });
    const [row] = await rig.db.sql`select published_at, attempts from outbox where event_id = ${envelope.id}`;
    expect(row?.publishedAt).toBeInstanceOf(Date);
  });

  it('never publishes an event whose transaction rolled back', async () => {
    let rolledBackId = '';
    await expect(
      rig.db.sql.begin(async (tx) => {
        rolledBackId = (await enqueueEvent(tx, 'post.deleted', { id: 1, author_id: 3 })).id;
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    const later = await rig.db.sql.begin((tx) => enqueueEvent(tx, 'post.updated', { id: 1 }));
    rig.relay.kick();

    await waitFor(() => rig.probe.messages.some((m) => m.properties.messageId === later.id), {
      what: 'the later event',
    });
    expect(rig.probe.messages.some((m) => m.properties.messageId === rolledBackId)).toBe(false);
    expect(await rig.db.sql`select 1 from outbox where event_id = ${rolledBackId}`).toHaveLength(0);
  });

  it('reports published counts and the pending backlog as metrics', async () => {
    // The probe sees the last event before the relay marks its row published: wait for the mark.
    const metrics = await waitFor(
      async () => {
        const text = await registry.metrics();
        return /outbox_pending_events 0\b/.test(text) && text;
      },
      { what: 'the backlog to drain' },
    );
    expect(metrics).toMatch(/events_published_total\{event="post.created"\} 1/);
    expect(metrics).toMatch(/outbox_pending_events 0/);
    expect(metrics).toMatch(/outbox_oldest_pending_seconds 0/);
  });
});

// An idle relay used to query its outbox every second (issue 47): every commit kicks it, so the poll
// only has to find the rows of a replica that died between commit and kick.
describe('an idle relay', () => {
  const exchange = testExchange('outbox-idle');
  let rig: RelayRig;

  beforeAll(async () => {
    rig = await startRelay('outbox_idle', exchange, { pollIntervalMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200)); // its first look found nothing
  });

  afterAll(() => rig.close());

  it('sleeps until a kick, which sends at once', async () => {
    const envelope = await rig.db.sql.begin((tx) => enqueueEvent(tx, 'post.created', { id: 1 }));
    const published = () => rig.probe.messages.find((m) => m.properties.messageId === envelope.id);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(published()).toBeUndefined();
    rig.relay.kick();
    await waitFor(published, { what: 'the kicked event', timeoutMs: 2_000 });
  });
});
