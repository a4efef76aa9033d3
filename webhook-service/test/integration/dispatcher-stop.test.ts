import { createDb } from '@community/db';
import { createLogger } from '@community/logging';
import { waitFor } from '@community/test-harness';
import { Dispatcher } from '../../src/delivery/dispatcher';
import { decodeSecretsKey, SecretBox } from '../../src/domain/secret-box';
import { startReceiver } from '../support/receiver';
import { owner, startWebhookService } from '../support/webhooks-harness';

// A stop during a claim: the old dispatcher returned from stop() at once, the claim went on, and its
// attempts ran on a pool already closed: unrecorded, each was sent again when its lease ran out.
it('stop waits for the claim under way and records every attempt it started', async () => {
  const h = await startWebhookService('stopclaim', {}, { dispatch: false });
  const r = await startReceiver();
  const pool = createDb(h.config.DATABASE_URL, { schema: 'webhooks', max: 2 });
  try {
    await h.call(owner, 'POST', '/webhooks', { body: { url: r.url, events: ['post.created'] } });
    for (let i = 0; i < 20; i++) await h.publish('post.created', { id: i + 1, title: 'Hi', author_id: 3 });
    await waitFor(async () => (await h.sql`select count(*)::int as n from deliveries`)[0]!.n === 20, {
      what: 'fan-out',
    });
    const dispatcher = new Dispatcher({
      sql: pool,
      logger: createLogger({ service: 'webhook-service', level: 'silent' }),
      schedule: [60],
      allowPrivate: true,
      box: new SecretBox(decodeSecretsKey(h.config.SECRETS_KEY)!),
    });
    dispatcher.start(); // its first claim starts now
    await dispatcher.stop();
    await pool.end({ timeout: 5 });

    const [rows] = await h.sql<{ leased: number; recorded: number }[]>`
      select count(*) filter (where leased_until is not null)::int as leased,
             count(*) filter (where attempts > 0)::int as recorded
      from deliveries`;
    expect(rows!.leased).toBe(0);
    expect(rows!.recorded).toBe(r.received.length);
  } finally {
    await pool.end({ timeout: 1 }).catch(() => {});
    await r.close();
    await h.stop();
  }
});
