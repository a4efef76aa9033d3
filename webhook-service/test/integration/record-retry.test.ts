import { createDb, type Sql } from '@community/db';
import { createLogger } from '@community/logging';
import { startTcpProxy, waitFor, type TcpProxy } from '@community/test-harness';
import { recordAttempt } from '../../src/db/deliveries.repository';
import { Dispatcher } from '../../src/delivery/dispatcher';
import { decodeSecretsKey, SecretBox } from '../../src/domain/secret-box';
import { startReceiver } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// Found by the e2e test of dropped PostgreSQL connections: ten attempts whose records were lost with
// their connections held all ten of the endpoint's slots until their leases ran out, and the
// endpoint's next webhook waited a minute.

let h: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('recordretry', {}, { dispatch: false });
});
afterAll(() => h.stop());

const deliveries = () =>
  h.sql<{ attempts: number; status: string; leased: boolean }[]>`
    select attempts, status, leased_until is not null as leased from deliveries order by id`;

it('records an attempt once PostgreSQL is back, not when its lease runs out', async () => {
  // Each answer comes 600 ms after its request: the link is cut in between.
  const r = await startReceiver(() => ({ status: 204, delayMs: 600 }));
  let proxy: TcpProxy | undefined;
  let pool: Sql | undefined;
  let dispatcher: Dispatcher | undefined;
  try {
    await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } });
    for (let i = 0; i < 3; i++) await h.publish('post.created', { id: i + 1, title: 'Hi', author_id: 3 });
    await waitFor(async () => (await deliveries()).length === 3, { what: 'fan-out' });

    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(h.config.DATABASE_URL).port) });
    pool = createDb(proxy.url(h.config.DATABASE_URL), { schema: 'webhooks', max: 2 });
    dispatcher = new Dispatcher({
      sql: pool,
      logger: createLogger({ service: 'webhook-service', level: 'silent' }),
      schedule: [60],
      allowPrivate: true,
      leaseSeconds: 60,
      box: new SecretBox(decodeSecretsKey(h.config.SECRETS_KEY)!),
    });
    dispatcher.start();
    await waitFor(() => r.received.length === 3, { what: 'the three attempts to reach the receiver' });
    await proxy.cut();
    // The answers come while PostgreSQL is unreachable: the first writes of their records fail.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    proxy.restore();

    await waitFor(async () => (await deliveries()).every((d) => d.status === 'succeeded' && !d.leased), {
      timeoutMs: 10_000,
      what: 'every attempt recorded after the link came back',
    });
    expect(await deliveries()).toEqual(Array(3).fill({ attempts: 1, status: 'succeeded', leased: false }));
    expect(r.received).toHaveLength(3);
  } finally {
    proxy?.restore();
    await dispatcher?.stop();
    await pool?.end({ timeout: 1 }).catch(() => {});
    await proxy?.stop();
    await r.close();
  }
});

it('counts an attempt once when its record is written twice', async () => {
  await h.sql`truncate deliveries`;
  await h.publish('post.created', { id: 99, title: 'Once', author_id: 3 });
  await waitFor(async () => (await deliveries()).length === 1, { what: 'fan-out' });
  const [row] = await h.sql<{ id: number }[]>`
    update deliveries set leased_until = now() + interval '1 minute' returning id`;
  const record = {
    status: 'succeeded' as const,
    responseStatus: 204,
    durationMs: 5,
    error: null,
    nextAttemptAt: null,
  };
  await recordAttempt(h.sql, { id: row!.id, attempts: 0 }, record);
  await recordAttempt(h.sql, { id: row!.id, attempts: 0 }, record);
  expect(await deliveries()).toEqual([{ attempts: 1, status: 'succeeded', leased: false }]);
});
