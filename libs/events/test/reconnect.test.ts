import { createDb, type Sql } from '@community/db';
import { testExchange, testInfra, waitFor, type TcpProxy } from '@community/test-harness';
import amqplib from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventConsumer, newEventId, topologyNames, type AmqpConnection, type EventEnvelope } from '../src';
import {
  deleteTopology,
  fastConnection,
  logger,
  proxyTo,
  SCHEMA,
  serviceDatabase,
  type ServiceDatabase,
} from './support/fixtures';

const NOTES_TABLE = 'create table notes (event_id text primary key, text text not null);';

describe('EventConsumer across outages', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('reconnect');
  const names = topologyNames(exchange, 'notes');
  let db: ServiceDatabase;
  let brokerProxy: TcpProxy;
  let dbProxy: TcpProxy;
  let consumerSql: Sql;
  let consumerAmqp: AmqpConnection;
  let publisher: AmqpConnection;
  let consumer: EventConsumer;

  async function publishNote(text: string): Promise<EventEnvelope> {
    const event = {
      id: newEventId(),
      event: 'note.added',
      timestamp: '2024-05-01T10:00:00Z',
      data: { text },
    };
    await publisher.publish(exchange, event.event, Buffer.from(JSON.stringify(event)), { persistent: true });
    return event;
  }

  async function noteApplied(text: string): Promise<boolean> {
    return (await db.sql`select 1 from notes where text = ${text}`).length === 1;
  }

  beforeAll(async () => {
    db = await serviceDatabase('events_reconnect', NOTES_TABLE);
    brokerProxy = await proxyTo(amqpUrl);
    dbProxy = await proxyTo(testInfra().pgUrl);
    consumerSql = createDb(dbProxy.url(db.url), { schema: SCHEMA, max: 2 });
    consumerAmqp = fastConnection(brokerProxy.url(amqpUrl), 'reconnect-consumer');
    publisher = fastConnection(amqpUrl, 'reconnect-publisher');
    consumer = new EventConsumer({
      sql: consumerSql,
      amqp: consumerAmqp,
      exchange,
      service: 'notes',
      logger,
      maxDeliveries: 2,
      retryDelayMs: 10,
      handlers: {
        'note.added': async (tx, event) => {
          await tx`insert into notes (event_id, text) values (${event.id}, ${String(event.data.text)})`;
        },
      },
    });
    consumer.start();
    await consumerAmqp.waitUntilConnected(5_000);
    await publisher.waitUntilConnected(5_000);
  });

  afterAll(async () => {
    await consumer.stop();
    await consumerAmqp.close();
    await publisher.close();
    await consumerSql.end({ timeout: 1 });
    await brokerProxy.stop();
    await dbProxy.stop();
    await deleteTopology(exchange, 'notes');
    await db.close();
  });

  it('keeps consuming after the broker connection is cut and restored', async () => {
    await publishNote('before cut');
    await waitFor(() => noteApplied('before cut'), { what: 'the first note' });

    await brokerProxy.cut();
    await waitFor(() => !consumerAmqp.isConnected(), { what: 'the drop to be noticed' });
    await publishNote('during cut');
    brokerProxy.restore();

    await waitFor(() => noteApplied('during cut'), {
      timeoutMs: 10_000,
      what: 'the note sent during the cut',
    });
  });

  it('holds an event while the database is unreachable instead of burning its deliveries', async () => {
    await dbProxy.cut();
    await publishNote('during db outage');
    await sleep(500); // several times maxDeliveries × retry delay: a counted retry would have dead-lettered it
    dbProxy.restore();

    await waitFor(() => noteApplied('during db outage'), { timeoutMs: 15_000, what: 'the held note' });
    const raw = await amqplib.connect(amqpUrl);
    try {
      const channel = await raw.createChannel();
      expect((await channel.checkQueue(names.deadLetterQueue)).messageCount).toBe(0);
    } finally {
      await raw.close();
    }
  });
});
