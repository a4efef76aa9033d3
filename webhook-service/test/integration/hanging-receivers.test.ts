import { pingResultSchema, type Actor } from '@community/contracts';
import { actor, waitFor } from '@community/test-harness';
import { messageIdOf } from '../../src/domain/message-id';
import { start, type WebhookService } from '../../src/start';
import { startHangingReceiver, type HangingReceiver } from '../support/hanging-receiver';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// Issue 41, finding 5: receivers that accept and never answer, however many accounts own them,
// never hold the dispatcher slots a healthy endpoint needs (DESIGN.md §21), and a test ping gives
// up after 5 s, well within the gateway's upstream timeout. Attempts keep their real 10 s timeout.

let h: WebhooksHarness;
let second: WebhookService;
let hanging: HangingReceiver;
beforeAll(async () => {
  h = await startWebhookService('hanging-receivers');
  second = await start({ ...h.config, WEBHOOK_SERVICE_PORT: 0 }, undefined, { pollIntervalMs: 50 });
  hanging = await startHangingReceiver();
});
afterAll(async () => {
  // Closed first: the attempts it holds end at once, so neither dispatcher waits out their timeouts.
  await hanging?.close();
  await second?.stop();
  await h.stop();
});

const receiver = receiversClosedAfterAll();

async function subscribe(who: Actor, url: string) {
  const res = await h.call(who, 'POST', '/webhooks', { body: { url, events: ['post.created'] } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number };
}

const laneOf = async (endpointId: number) =>
  (await h.sql<{ fastLane: boolean }[]>`select fast_lane from endpoints where id = ${endpointId}`)[0]!
    .fastLane;

describe('POST /webhooks/{id}/test', () => {
  it('gives up on a receiver that never answers after 5 s, answering the failed attempt', async () => {
    const endpoint = await subscribe(owner, hanging.url);
    const started = Date.now();
    const res = await h.call(owner, 'POST', `/webhooks/${endpoint.id}/test`);
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(pingResultSchema.parse(res.body.data)).toMatchObject({ status: 'failed', response_status: null });
    expect(res.body.data.error).toMatch(/timeout after 5000 ms/);
    expect(took).toBeGreaterThanOrEqual(4_900);
    expect(took).toBeLessThan(5_500);
    const log = (await h.call(owner, 'GET', `/webhooks/${endpoint.id}/deliveries`)).body.data;
    expect(log).toMatchObject([{ event: 'ping', status: 'failed', attempts: 1, response_status: null }]);
  });

  it('puts an endpoint whose ping answered in the fast lane, and one whose ping timed out in the slow lane', async () => {
    const answering = await subscribe(owner, (await receiver()).url);
    const silent = await subscribe(owner, hanging.url);
    // New endpoints start in the slow lane.
    expect([await laneOf(answering.id), await laneOf(silent.id)]).toEqual([false, false]);
    await h.call(owner, 'POST', `/webhooks/${answering.id}/test`);
    await h.call(owner, 'POST', `/webhooks/${silent.id}/test`);
    expect([await laneOf(answering.id), await laneOf(silent.id)]).toEqual([true, false]);
  });
});

describe('dispatch beside hanging receivers', () => {
  it("delivers a healthy endpoint's new event within 5 s while 200 endpoints of 10 accounts hang, across two replicas", async () => {
    // A healthy endpoint that has answered in time before.
    const healthy = await receiver();
    await subscribe(owner, healthy.url);
    await h.publish('post.created', { id: 1, title: 'before', author_id: 1 });
    await waitFor(() => healthy.received.length === 1, { what: 'the first healthy delivery' });

    // 10 free accounts, 20 endpoints each, all pointing at a receiver that never answers.
    const attackers = Array.from({ length: 10 }, (_, i) => actor(700 + i, 'member', ['webhooks']));
    const hangers = (
      await Promise.all(
        attackers.map(async (who) => {
          const ids: number[] = [];
          for (let i = 0; i < 20; i++) ids.push((await subscribe(who, hanging.url)).id);
          return ids;
        }),
      )
    ).flat();
    hanging.resetMostOpen();
    for (let i = 0; i < 3; i++) await h.publish('post.created', { id: 10 + i, title: 'load', author_id: 1 });
    const busy = async () =>
      (
        await h.sql<{ n: number }[]>`
          select count(distinct endpoint_id)::int as n from deliveries
          where endpoint_id = any(${hangers}::int[]) and status = 'pending'`
      )[0]!.n;
    await waitFor(async () => (await busy()) === 200 && hanging.counts.open >= 20, {
      what: 'every hanging endpoint with work, and attempts hanging',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const started = Date.now();
    const marker = await h.publish('post.created', { id: 99, title: 'healthy', author_id: 1 });
    const markerId = messageIdOf(marker.id);
    await waitFor(() => healthy.received.some((r) => r.headers['webhook-id'] === markerId), {
      what: "the healthy endpoint's new event",
      timeoutMs: 5_000,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The hanging endpoints still had work, and held at most a tenth of each dispatcher's 200 slots.
    expect(await busy()).toBe(200);
    expect(hanging.counts.mostOpen).toBeLessThanOrEqual(2 * 20);
  }, 45_000);
});
