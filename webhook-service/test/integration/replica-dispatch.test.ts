import { waitFor } from '@community/test-harness';
import { start, type WebhookService } from '../../src/start';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// Two webhook-service processes against one database (issue 23): the per-endpoint cap of 10
// attempts in flight (DESIGN.md §7) holds across both dispatchers, not per process.

let h: WebhooksHarness;
let second: WebhookService;
// Each process sends at most 8 attempts at once, so the endpoint's 10 need both (a cap kept per
// process would let 16 through), and each looks for due work every 100 ms: one that fanned out none
// of the events itself would otherwise sleep up to 5 s (idleMaxMs), longer than this test's backlog.
const tuning = { pollIntervalMs: 50, idleMaxMs: 100, maxInFlight: 8 };
beforeAll(async () => {
  h = await startWebhookService('replica-dispatch', {}, tuning);
  second = await start({ ...h.config, WEBHOOK_SERVICE_PORT: 0 }, undefined, tuning);
});
afterAll(async () => {
  await second?.stop();
  await h.stop();
});

const receiver = receiversClosedAfterAll();

async function attemptsBy(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('webhook_attempts_total'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

it('keeps one endpoint at 10 attempts in flight across two dispatchers, and delivers each event once', async () => {
  let open = 0;
  let most = 0;
  const slow = await receiver(() => {
    open++;
    most = Math.max(most, open);
    setTimeout(() => open--, 400);
    return { status: 204, delayMs: 400 };
  });
  const res = await h.call(owner, 'POST', '/webhooks', { body: { url: slow.url, events: ['post.created'] } });
  expect(res.status).toBe(201);
  const before = [await attemptsBy(h.url), await attemptsBy(second.url)];
  for (let i = 0; i < 60; i++) await h.publish('post.created', { id: i + 1, title: 't', author_id: 1 });
  await waitFor(() => slow.received.length >= 60 || undefined, { what: '60 deliveries', timeoutMs: 20_000 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(most).toBeLessThanOrEqual(10);
  expect(most).toBeGreaterThanOrEqual(5);
  // Both dispatchers sent some: the cap was shared, not left to one of them.
  const after = [await attemptsBy(h.url), await attemptsBy(second.url)];
  expect(after[0]! - before[0]!).toBeGreaterThan(0);
  expect(after[1]! - before[1]!).toBeGreaterThan(0);
  // Each event once, by webhook-id.
  const ids = slow.received.map((r) => r.headers['webhook-id']);
  expect(new Set(ids).size).toBe(60);
  expect(ids).toHaveLength(60);
});
