import { createDb, migrate, type Sql } from '@community/db';
import { eventsMigrations, newEventId, OUTBOX_RETENTION_DAYS } from '@community/events';
import { createLogger } from '@community/logging';
import { createTestDatabase, waitFor, type TestDatabase } from '@community/test-harness';
import { OutboxSweeper } from '../src';

// DESIGN.md §20: a published event's payload (which may name a member) leaves the outbox after the
// retention; what the relay has not published yet stays, however old.

const SCHEMA = 'svc';
const logger = createLogger({ service: 'outbox-sweeper-test', level: 'silent' });
let database: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await createTestDatabase('outboxsweep');
  sql = createDb(database.url, { schema: SCHEMA, max: 2 });
  await migrate(sql, SCHEMA, eventsMigrations);
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await database.drop();
});

/** An outbox row written `ageDays` ago, published a second later or not at all; answers its event id. */
async function outboxRow(ageDays: number, published: boolean): Promise<string> {
  const eventId = newEventId();
  await sql`
    insert into outbox (event_id, event, payload, created_at, published_at)
    select ${eventId}, 'user.registered', ${sql.json({ data: { username: 'someone' } })}, at,
      case when ${published} then at + interval '1 second' end
    from (select now() - make_interval(days => ${ageDays}) as at) t`;
  return eventId;
}

const remaining = async () =>
  (await sql<{ eventId: string }[]>`select event_id from outbox order by id`).map((r) => r.eventId);

it('deletes published rows past the retention, batch by batch, and keeps unpublished and recent ones', async () => {
  const old = OUTBOX_RETENTION_DAYS + 1;
  await Promise.all([outboxRow(old, true), outboxRow(old, true), outboxRow(old, true)]);
  const unpublished = await outboxRow(old, false);
  const recent = await outboxRow(OUTBOX_RETENTION_DAYS - 1, true);

  expect(await new OutboxSweeper(sql, logger).sweep(2)).toBe(3);

  expect(await remaining()).toEqual([unpublished, recent]);
});

it('runs on its own once started, until stopped', async () => {
  await sql`delete from outbox`;
  await outboxRow(OUTBOX_RETENTION_DAYS + 1, true);
  const sweeper = new OutboxSweeper(sql, logger, 50);
  sweeper.start();
  try {
    await waitFor(async () => (await remaining()).length === 0, {
      what: 'the periodic sweep',
      timeoutMs: 5000,
    });
  } finally {
    sweeper.stop();
  }
});
