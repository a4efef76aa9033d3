import { setTimeout as sleep } from 'node:timers/promises';
import { publishEvents, testEnvelope, testExchange, testInfra, waitFor } from '@community/test-harness';
import {
  echoCommitted,
  enqueueEvent,
  EventConsumer,
  onEveryReplica,
  type AmqpConnection,
  type EventEnvelope,
} from '../src';
import {
  deleteTopology,
  fastConnection,
  logger,
  serviceDatabase,
  type ServiceDatabase,
} from './support/fixtures';

// What a consumer's handler enqueues reaches this process's own every-replica listeners at once,
// once committed, without the relay or the broker; another process hears it only over the bus.
describe('echoCommitted', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('echo');
  let db: ServiceDatabase;
  let own: AmqpConnection;
  let other: AmqpConnection;
  let consumer: EventConsumer;
  const heard = { own: [] as EventEnvelope[], other: [] as EventEnvelope[] };
  const attempts = new Map<string, number>();

  beforeAll(async () => {
    db = await serviceDatabase('events_echo');
    own = fastConnection(amqpUrl, 'echo-own');
    other = fastConnection(amqpUrl, 'echo-other');
    for (const [amqp, into] of [
      [own, heard.own],
      [other, heard.other],
    ] as const)
      onEveryReplica({ amqp, exchange, events: ['note.told'], logger, handle: (event) => into.push(event) });
    // No relay runs: whatever a listener hears here came from echoCommitted.
    consumer = new EventConsumer({
      sql: db.sql,
      amqp: own,
      exchange,
      service: 'echo',
      logger,
      retryDelayMs: 10,
      onApplied: (_event, enqueued) => echoCommitted(own, enqueued),
      handlers: {
        'note.added': async (tx, event) => {
          const tries = (attempts.get(event.id) ?? 0) + 1;
          attempts.set(event.id, tries);
          await enqueueEvent(tx, 'note.told', { text: event.data.text, at: new Date(0) });
          await enqueueEvent(tx, 'note.other', { text: event.data.text });
          // The first attempt of a 'flaky' note rolls back what it enqueued.
          if (event.data.text === 'flaky' && tries === 1) throw new Error('first attempt fails');
        },
      },
    });
    consumer.start();
    await Promise.all([own.waitUntilConnected(5_000), other.waitUntilConnected(5_000)]);
  });

  afterAll(async () => {
    await consumer.stop();
    await Promise.all([own.close(), other.close()]);
    await deleteTopology(exchange, 'echo');
    await db.close();
  });

  const publish = (text: string) => publishEvents(exchange, [testEnvelope('note.added', { text })]);

  it('hands the committed events to this process’s listeners, as the bus would bring them', async () => {
    await publish('hello');
    await waitFor(() => heard.own.length === 1 || undefined, { what: 'the echo' });
    const [told] = heard.own;
    expect(told).toMatchObject({
      event: 'note.told',
      data: { text: 'hello', at: '1970-01-01T00:00:00.000Z' },
    });
    const [row] = await db.sql<{ eventId: string }[]>`select event_id from outbox where event = 'note.told'`;
    expect(told!.id).toBe(row!.eventId);
    // Another process's listener hears only the bus, which no relay feeds here.
    await sleep(300);
    expect(heard.other).toEqual([]);
    expect(heard.own).toHaveLength(1);
  });

  it('echoes nothing of an attempt that rolled back', async () => {
    heard.own.length = 0;
    await publish('flaky');
    await waitFor(() => heard.own.length === 1 || undefined, { what: 'the echo of the retried attempt' });
    const [committed] = await db.sql<{ eventId: string }[]>`
      select event_id from outbox where event = 'note.told' and payload -> 'data' ->> 'text' = 'flaky'`;
    expect(heard.own.map((event) => event.id)).toEqual([committed!.eventId]);
    expect([...attempts.values()]).toContain(2);
  });
});
