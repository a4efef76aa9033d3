import { testExchange, testInfra, waitFor } from '@community/test-harness';
import amqplib from 'amqplib';
import type { Channel, ChannelModel } from 'amqplib';
import { Registry } from 'prom-client';
import { EventConsumer, newEventId, topologyNames, type AmqpConnection, type EventEnvelope } from '../src';
import {
  deleteTopology,
  fastConnection,
  logger,
  serviceDatabase,
  type ServiceDatabase,
} from './support/fixtures';

const NOTES_TABLE = 'create table notes (event_id text primary key, text text not null);';
const MAX_DELIVERIES = 3;

describe('EventConsumer', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('consumer');
  const names = topologyNames(exchange, 'notes');
  const registry = new Registry();
  const poisonCalls = new Map<string, number>();
  let db: ServiceDatabase;
  let amqp: AmqpConnection;
  let consumer: EventConsumer;
  let raw: ChannelModel;
  let channel: Channel;

  function publish(body: unknown, routingKey: string): void {
    const content = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    channel.publish(exchange, routingKey, content, { persistent: true });
  }

  function envelope(event: string, data: Record<string, unknown>): EventEnvelope {
    return { id: newEventId(), event, timestamp: '2024-05-01T10:00:00Z', data };
  }

  const applied: { id: string; committed: boolean }[] = [];

  async function notes(): Promise<string[]> {
    return (await db.sql<{ text: string }[]>`select text from notes order by text`).map((row) => row.text);
  }

  async function deadLettersShown(): Promise<number> {
    const line = (await registry.metrics())
      .split('\n')
      .find((l) => l.startsWith(`events_dead_letter_messages{queue="${names.deadLetterQueue}"}`));
    return Number(line?.split(' ')[1]);
  }

  async function takeFromDlq(): Promise<amqplib.GetMessage> {
    return waitFor(async () => channel.get(names.deadLetterQueue, { noAck: true }), {
      timeoutMs: 10_000,
      what: 'a message in the DLQ',
    });
  }

  beforeAll(async () => {
    db = await serviceDatabase('events_consumer', NOTES_TABLE);
    amqp = fastConnection(amqpUrl, 'consumer-test');
    consumer = new EventConsumer({
      sql: db.sql,
      amqp,
      exchange,
      service: 'notes',
      logger,
      registry,
      maxDeliveries: MAX_DELIVERIES,
      retryDelayMs: 20,
      onApplied: async (event) => {
        // what the hook sees must already be committed
        const [row] = await db.sql`select 1 as found from notes where event_id = ${event.id}`;
        applied.push({ id: event.id, committed: !!row });
      },
      handlers: {
        'note.added': async (tx, event) => {
          await tx`insert into notes (event_id, text) values (${event.id}, ${String(event.data.text)})`;
        },
        'note.poison': async (tx, event) => {
          poisonCalls.set(event.id, (poisonCalls.get(event.id) ?? 0) + 1);
          await tx`insert into notes (event_id, text) values (${event.id}, 'poison')`;
          throw new Error('handler always fails');
        },
      },
    });
    consumer.start();
    await amqp.waitUntilConnected(5_000);
    raw = await amqplib.connect(amqpUrl);
    channel = await raw.createChannel();
  });

  afterAll(async () => {
    await consumer.stop();
    await amqp.close();
    await raw.close();
    await deleteTopology(exchange, 'notes');
    await db.close();
  });

  it('applies the handler in the transaction that records the event as processed', async () => {
    const event = envelope('note.added', { text: 'first' });
    publish(event, event.event);

    await waitFor(async () => (await notes()).includes('first'), { what: 'the note' });
    const [processed] = await db.sql`select event from processed_events where event_id = ${event.id}`;
    expect(processed?.event).toBe('note.added');
  });

  it('applies an event delivered twice only once', async () => {
    const event = envelope('note.added', { text: 'twice' });
    publish(event, event.event);
    publish(event, event.event);

    await waitFor(async () => (await registry.metrics()).includes('outcome="duplicate"'), {
      what: 'the second copy to be seen as a duplicate',
    });
    expect((await notes()).filter((text) => text === 'twice')).toHaveLength(1);
    await waitFor(() => applied.some((a) => a.id === event.id), { what: 'the onApplied hook' });
    expect(applied.filter((a) => a.id === event.id)).toEqual([{ id: event.id, committed: true }]);
  });

  it('dead-letters an event whose handler keeps failing, after maxDeliveries, while others keep flowing', async () => {
    const poison = envelope('note.poison', {});
    const healthy = envelope('note.added', { text: 'after poison' });
    publish(poison, poison.event);
    publish(healthy, healthy.event);

    await waitFor(async () => (await notes()).includes('after poison'), { what: 'the healthy event' });
    await waitFor(async () => (await deadLettersShown()) === 1, { what: 'the DLQ gauge to show it' });
    const dead = await takeFromDlq();
    expect(await deadLettersShown()).toBe(0);
    expect(JSON.parse(dead.content.toString('utf8'))).toEqual(poison);
    expect(poisonCalls.get(poison.id)).toBe(MAX_DELIVERIES);
    // The failed attempts rolled back: neither the handler's write nor the processed mark survived.
    expect(await notes()).not.toContain('poison');
    expect(await db.sql`select 1 from processed_events where event_id = ${poison.id}`).toHaveLength(0);
  });

  it('dead-letters a malformed message at once', async () => {
    publish('{not json', 'note.added');
    publish({ event: 'note.added', data: {} }, 'note.added');

    const first = await takeFromDlq();
    const second = await takeFromDlq();
    expect(first.content.toString('utf8')).toBe('{not json');
    expect(first.properties.headers?.['x-first-death-reason']).toBe('rejected');
    expect(JSON.parse(second.content.toString('utf8'))).toEqual({ event: 'note.added', data: {} });
  });

  it('acks and ignores an event it has no handler for', async () => {
    const stray = envelope('note.unknown', {});
    channel.sendToQueue(names.queue, Buffer.from(JSON.stringify(stray)));

    await waitFor(async () => (await channel.checkQueue(names.queue)).messageCount === 0, {
      what: 'an empty queue',
    });
    expect((await channel.checkQueue(names.deadLetterQueue)).messageCount).toBe(0);
    expect(await db.sql`select 1 from processed_events where event_id = ${stray.id}`).toHaveLength(0);
  });

  it('counts outcomes per event', async () => {
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/events_consumed_total\{event="note.added",outcome="applied"\} 3/);
    expect(metrics).toMatch(/events_consumed_total\{event="note.poison",outcome="failed"\} 3/);
    expect(metrics).toMatch(/events_consumed_total\{event="note.poison",outcome="dead_lettered"\} 1/);
    expect(metrics).toMatch(/events_consumed_total\{event="malformed",outcome="dead_lettered"\} 2/);
  });
});
