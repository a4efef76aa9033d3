import { testExchange, testInfra, waitFor } from '@community/test-harness';
import amqplib from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import { enqueueEvent } from '../src';
import { startRelayBehindProxy, type ProxiedRelayRig } from './support/fixtures';

describe('outbox relay during a broker outage', () => {
  const exchange = testExchange('outage');
  let rig: ProxiedRelayRig;

  beforeAll(async () => {
    rig = await startRelayBehindProxy('outage', exchange);
  });

  afterAll(() => rig.close());

  it('keeps events written while the broker is away and publishes each once, in order, after it returns', async () => {
    await rig.proxy.cut();
    await waitFor(() => !rig.amqp.isConnected(), { what: 'the outage to be noticed' });

    const written = [];
    for (const n of [1, 2, 3]) {
      written.push(await rig.db.sql.begin((tx) => enqueueEvent(tx, 'comment.created', { id: n })));
      rig.relay.kick();
    }
    await sleep(300);
    expect(rig.probe.messages).toHaveLength(0);
    expect((await rig.relay.pending()).count).toBe(3);

    rig.proxy.restore();
    await waitFor(() => rig.probe.messages.length >= 3, { timeoutMs: 10_000, what: 'the three events' });
    await sleep(300); // room for a duplicate to show up, if there were one
    expect(rig.probe.bodies()).toEqual(written);
    expect(await rig.relay.pending()).toEqual({ count: 0, oldestAgeSeconds: 0 });
  });

  it('records a publish the broker refused and retries the row until it goes out', async () => {
    // Deleting the exchange makes the broker close the channel on the next publish (404), an unconfirmed send.
    const raw = await amqplib.connect(testInfra().amqpUrl);
    await (await raw.createChannel()).deleteExchange(exchange);
    await raw.close();

    const event = await rig.db.sql.begin((tx) => enqueueEvent(tx, 'post.updated', { id: 9 }));
    rig.relay.kick();

    const row = await waitFor(
      async () => {
        const [found] = await rig.db
          .sql`select attempts, last_error, published_at from outbox where event_id = ${event.id}`;
        return found?.publishedAt ? found : undefined;
      },
      { timeoutMs: 10_000, what: 'the row to be published after the retry' },
    );
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.lastError).toMatch(/not confirmed/);
  });
});
