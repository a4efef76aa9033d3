import { startTcpProxy, testExchange, testInfra, waitFor, type TcpProxy } from '@community/test-harness';
import amqplib from 'amqplib';
import { Registry } from 'prom-client';
import { EventConsumer, topologyNames, type AmqpConnection } from '../src';
import {
  deleteTopology,
  fastConnection,
  logger,
  serviceDatabase,
  type ServiceDatabase,
} from './support/fixtures';

// events_dead_letter_messages is read from the broker at each scrape: a broker away must not fail it.
describe('the dead-letter gauge', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('dlq-gauge');
  const names = topologyNames(exchange, 'notes');
  const registry = new Registry();
  let db: ServiceDatabase;
  let proxy: TcpProxy;
  let amqp: AmqpConnection;
  let consumer: EventConsumer;
  let raw: amqplib.ChannelModel;

  const shown = async () => {
    const series = `events_dead_letter_messages{queue="${names.deadLetterQueue}"} `;
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(series));
    return line === undefined ? undefined : Number(line.slice(series.length));
  };

  beforeAll(async () => {
    db = await serviceDatabase('events_dlq_gauge');
    const broker = new URL(amqpUrl);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
    amqp = fastConnection(proxy.url(amqpUrl), 'dlq-gauge-consumer');
    consumer = new EventConsumer({
      sql: db.sql,
      amqp,
      exchange,
      service: 'notes',
      logger,
      registry,
      handlers: { 'note.added': async () => undefined },
    });
    consumer.start();
    await amqp.waitUntilConnected(5_000);
    raw = await amqplib.connect(amqpUrl);
  });

  afterAll(async () => {
    await consumer.stop();
    await amqp.close();
    await raw.close();
    await proxy.stop();
    await deleteTopology(exchange, 'notes');
    await db.close();
  });

  it('shows a dead-lettered message, and keeps the last count while the broker is away', async () => {
    await waitFor(async () => (await shown()) === 0, { what: 'an empty DLQ on the gauge' });
    const channel = await raw.createChannel();
    channel.publish(exchange, 'note.added', Buffer.from('{not json'));
    await waitFor(async () => (await shown()) === 1, { what: 'the dead-lettered message on the gauge' });

    await proxy.cut();
    await waitFor(() => !amqp.isConnected(), { what: 'the drop to be noticed' });
    expect(await shown()).toBe(1);

    proxy.restore();
    await amqp.waitUntilConnected(10_000);
    await channel.purgeQueue(names.deadLetterQueue);
    await waitFor(async () => (await shown()) === 0, { what: 'the purged DLQ on the gauge' });
  });

  it('answers a scrape within the broker timeout while the broker hangs', async () => {
    proxy.freeze();
    try {
      const started = performance.now();
      expect(await shown()).toBe(0);
      expect(performance.now() - started).toBeLessThan(4_000);
    } finally {
      proxy.restore();
    }
  });

  it('drops its series when the consumer stops', async () => {
    await consumer.stop();
    expect(await shown()).toBeUndefined();
  });
});
