import { createDb, type Sql } from '@community/db';
import { createLogger } from '@community/logging';
import { waitFor } from '@community/test-harness';
import { Dispatcher, type DispatcherOptions } from '../../src/delivery/dispatcher';
import { decodeSecretsKey, SecretBox } from '../../src/domain/secret-box';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// The dispatcher used to claim every 200 ms whatever was due: an idle platform queried its database
// five times a second (issue 47). It now sleeps until the next delivery is due, or idleMaxMs.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: WebhooksHarness;
let pool: Sql;
const dispatchers: Dispatcher[] = [];
beforeAll(async () => {
  // Fan-out without a dispatcher of its own: only the dispatchers below send.
  h = await startWebhookService('wakeups', {}, { dispatch: false });
  pool = createDb(h.config.DATABASE_URL, { schema: 'webhooks', max: 2 });
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
  await h.sql`delete from deliveries`;
});
afterAll(async () => {
  await pool.end({ timeout: 5 });
  await h.stop();
});

const receiver = receiversClosedAfterAll();

function dispatcher(tuning: Partial<DispatcherOptions>): Dispatcher {
  const d = new Dispatcher({
    sql: pool,
    logger: createLogger({ service: 'webhook-service', level: 'silent' }),
    schedule: [60],
    allowPrivate: true,
    box: new SecretBox(decodeSecretsKey(h.config.SECRETS_KEY)!),
    pollIntervalMs: 20,
    ...tuning,
  });
  dispatchers.push(d);
  d.start();
  return d;
}

let nextPostId = 1;
/** A delivery queued as another replica's fan-out would queue it: no kick reaches our dispatcher. */
async function queued(): Promise<void> {
  const before = (await h.sql<{ n: number }[]>`select count(*)::int as n from deliveries`)[0]!.n;
  await h.publish('post.created', { id: nextPostId++, title: 'Hi', author_id: 3 });
  await waitFor(
    async () => (await h.sql<{ n: number }[]>`select count(*)::int as n from deliveries`)[0]!.n > before,
    {
      what: 'the fan-out',
    },
  );
}

async function subscribed() {
  const r = await receiver();
  const res = await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } });
  expect(res.status).toBe(201);
  return r;
}

it('sleeps while nothing is due, and sends at once when kicked', async () => {
  const r = await subscribed();
  const d = dispatcher({ idleMaxMs: 60_000 });
  await sleep(100); // its first look found nothing
  await queued();
  await sleep(1_000); // fifty poll intervals: a polling dispatcher would have sent it
  expect(r.received).toHaveLength(0);
  d.kick();
  await waitFor(() => r.received.length === 1, { what: 'the kicked delivery' });
});

it('wakes when a retry falls due, with no kick', async () => {
  const r = await subscribed();
  await queued();
  await h.sql`update deliveries set next_attempt_at = now() + interval '700 milliseconds'`;
  const started = Date.now();
  dispatcher({ idleMaxMs: 60_000 });
  await waitFor(() => r.received.length === 1, { what: 'the retry at its time', timeoutMs: 5_000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(600);
});

it('finds what another replica queued within idleMaxMs', async () => {
  const r = await subscribed();
  dispatcher({ idleMaxMs: 300 });
  await sleep(100);
  await queued();
  await waitFor(() => r.received.length === 1, { what: 'the delivery queued elsewhere', timeoutMs: 3_000 });
});
