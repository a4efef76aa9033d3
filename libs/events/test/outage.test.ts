import {
  deleteAmqpObjects,
  startTcpProxy,
  testExchange,
  testInfra,
  waitFor,
  type TcpProxy,
} from '@community/test-harness';
import amqplib from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import { enqueueEvent, OutboxRelay, type AmqpConnection } from '../src';
import { fastConnection, logger, serviceDatabase, type ServiceDatabase } from './support/fixtures';
import { probeQueue, type ProbeQueue } from '@community/test-harness';

describe('outbox relay during a broker outage', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('outage');
  let db: ServiceDatabase;
  let proxy: TcpProxy;
  let amqp: AmqpConnection;
  let relay: OutboxRelay;
  let probe: ProbeQueue;

  beforeAll(async () => {
    db = await serviceDatabase('events_outage');
    probe = await probeQueue(amqpUrl, exchange);
    proxy = await startTcpProxy({ host: new URL(amqpUrl).hostname, port: Number(new URL(amqpUrl).port) });
    amqp = fastConnection(proxy.url(amqpUrl), 'outage-test');
    relay = new OutboxRelay({ sql: db.sql, amqp, exchange, logger, pollIntervalMs: 50 });
    relay.start();
    await amqp.waitUntilConnected(5_000);
  });

  afterAll(async () => {
    await relay.stop();
    await amqp.close();
    await proxy.stop();
    await probe.close();
    await deleteAmqpObjects(amqpUrl, { exchanges: [exchange] });
    await db.close();
  });

  it('keeps events written while the broker is away and publishes each once, in order, after it returns', async () => {
    await proxy.cut();
    await waitFor(() => !amqp.isConnected(), { what: 'the outage to be noticed' });

    const written = [];
    for (const n of [1, 2, 3]) {
      written.push(await db.sql.begin((tx) => enqueueEvent(tx, 'comment.created', { id: n })));
      relay.kick();
    }
    await sleep(300);
    expect(probe.messages).toHaveLength(0);
    expect((await relay.pending()).count).toBe(3);

    proxy.restore();
    await waitFor(() => probe.messages.length >= 3, { timeoutMs: 10_000, what: 'the three events' });
    await sleep(300); // room for a duplicate to show up, if there were one
    expect(probe.bodies()).toEqual(written);
    expect(await relay.pending()).toEqual({ count: 0, oldestAgeSeconds: 0 });
  });

  it('records a publish the broker refused and retries the row until it goes out', async () => {
    // Deleting the exchange makes the broker close the channel on the next publish (404), an unconfirmed send.
    const raw = await amqplib.connect(amqpUrl);
    await (await raw.createChannel()).deleteExchange(exchange);
    await raw.close();

    const event = await db.sql.begin((tx) => enqueueEvent(tx, 'post.updated', { id: 9 }));
    relay.kick();

    const row = await waitFor(
      async () => {
        const [found] =
          await db.sql`select attempts, last_error, published_at from outbox where event_id = ${event.id}`;
        return found?.publishedAt ? found : undefined;
      },
      { timeoutMs: 10_000, what: 'the row to be published after the retry' },
    );
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.lastError).toMatch(/not confirmed/);
  });
});
