import type { Tx } from '@community/db';
import { waitFor } from '@community/test-harness';
import { claimDue, type ClaimLimits } from '../../src/db/deliveries.repository';
import { receiversClosedAfterAll, startReceiver } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// DESIGN.md §21: the fast lane is for endpoints whose last attempt answered in time; the others
// share a slow lane of one attempt each and a tenth of a dispatcher's slots.

let live: WebhooksHarness;
let paused: WebhooksHarness;
beforeAll(async () => {
  // Attempts give up after 300 ms here, so a receiver answering after 1 s has timed out.
  live = await startWebhookService('lanes', {}, { timeoutMs: 300 });
  // No dispatcher: the due query is called by hand.
  paused = await startWebhookService('lanes-paused', {}, { dispatch: false });
});
afterAll(async () => {
  await live?.stop();
  await paused?.stop();
});

const receiver = receiversClosedAfterAll();

describe('an endpoint changes lane with its last attempt', () => {
  const laneOf = async (id: number) =>
    (await live.sql<{ fastLane: boolean }[]>`select fast_lane from endpoints where id = ${id}`)[0]!.fastLane;
  const untilLane = (id: number, fast: boolean) =>
    waitFor(async () => (await laneOf(id)) === fast, {
      what: `endpoint ${id} in the ${fast ? 'fast' : 'slow'} lane`,
    });
  let events = 0;
  const publish = () => live.publish('post.deleted', { id: ++events, author_id: 1 });

  async function subscribe(url: string) {
    const res = await live.call(owner, 'POST', '/webhooks', { body: { url, events: ['post.deleted'] } });
    expect(res.status).toBe(201);
    return res.body.data as { id: number };
  }

  it('moves an endpoint to the slow lane when an attempt times out, and back once one answers in time', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url);
    expect(await laneOf(endpoint.id)).toBe(false);
    await publish();
    await untilLane(endpoint.id, true);

    r.respondWith(() => ({ status: 204, delayMs: 1_000 }));
    await publish();
    await untilLane(endpoint.id, false);

    // An answer in time moves it back, whatever the status: a 500 is an answer.
    r.respondWith(() => ({ status: 500 }));
    await publish();
    await untilLane(endpoint.id, true);
  });

  it('moves an endpoint whose receiver refuses connections to the slow lane', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url);
    await publish();
    await untilLane(endpoint.id, true);
    await r.close();
    await publish();
    await untilLane(endpoint.id, false);
  });

  it('starts an endpoint whose URL changes in the slow lane, as a new one', async () => {
    const endpoint = await subscribe((await receiver()).url);
    await publish();
    await untilLane(endpoint.id, true);
    const description = await live.call(owner, 'PUT', `/webhooks/${endpoint.id}`, {
      body: { description: 'd' },
    });
    expect([description.status, await laneOf(endpoint.id)]).toEqual([200, true]);
    const other = await startReceiver();
    await other.close();
    const moved = await live.call(owner, 'PUT', `/webhooks/${endpoint.id}`, { body: { url: other.url } });
    expect([moved.status, await laneOf(endpoint.id)]).toEqual([200, false]);
  });
});

describe('the due query', () => {
  const LIMITS: ClaimLimits = {
    limit: 100,
    perEndpoint: 10,
    perUser: 50,
    perSlowEndpoint: 1,
    slowLimit: 20,
    leaseSeconds: 60,
  };

  /** An endpoint of `userId` with `due` deliveries due now; `leased` of them in flight. */
  async function endpointWith(tx: Tx, userId: number, fastLane: boolean, due: number, leased = 0) {
    const [row] = await tx<{ id: number }[]>`
      insert into endpoints (user_id, url, events, secret, fast_lane)
      values (${userId}, 'http://127.0.0.1:9/hook', '{post.updated}', 'whsec_x', ${fastLane}) returning id`;
    await tx`
      insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at, leased_until)
      select ${row!.id}, 'evt_' || ${row!.id} || '_' || i, 'post.updated', '{}', 'msg_' || ${row!.id} || '_' || i,
             case when i <= ${leased} then now() + interval '1 minute' else now() - interval '1 second' end,
             case when i <= ${leased} then now() + interval '1 minute' end
      from generate_series(1, ${due + leased}) as i`;
    return row!.id;
  }

  /** Arranges, claims and rolls back; answers how many each endpoint got. */
  async function claimed(arrange: (tx: Tx) => Promise<void>, limits: Partial<ClaimLimits> = {}) {
    const perEndpoint = new Map<number, number>();
    await paused.sql
      .begin(async (tx) => {
        await arrange(tx as Tx);
        for (const row of await claimDue(tx as Tx, { ...LIMITS, ...limits }))
          perEndpoint.set(row.endpointId, (perEndpoint.get(row.endpointId) ?? 0) + 1);
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
    return perEndpoint;
  }

  it('claims one delivery per slow-lane endpoint, and no more of the slow lane than its share', async () => {
    let fast = 0;
    const slow: number[] = [];
    const got = await claimed(async (tx) => {
      // 30 hanging endpoints of 3 accounts with 2 due each; one healthy endpoint with 5.
      for (let i = 0; i < 30; i++) slow.push(await endpointWith(tx, 800 + (i % 3), false, 2));
      fast = await endpointWith(tx, 810, true, 5);
    });
    expect(got.get(fast)).toBe(5);
    expect(slow.filter((id) => got.has(id))).toHaveLength(20);
    expect(slow.every((id) => (got.get(id) ?? 0) <= 1)).toBe(true);
  });

  it('gives a slow-lane endpoint nothing while its one attempt is in flight, on any replica', async () => {
    let busy = 0;
    let idle = 0;
    const got = await claimed(async (tx) => {
      busy = await endpointWith(tx, 820, false, 3, 1);
      idle = await endpointWith(tx, 820, false, 3);
    });
    expect([got.get(busy), got.get(idle)]).toEqual([undefined, 1]);
  });

  it('gives the slow lane nothing once this dispatcher holds its share, and the fast lane all it asks', async () => {
    let slow = 0;
    let fast = 0;
    const got = await claimed(
      async (tx) => {
        slow = await endpointWith(tx, 830, false, 1);
        fast = await endpointWith(tx, 831, true, 3);
      },
      { slowLimit: 0 },
    );
    expect([got.get(slow), got.get(fast)]).toEqual([undefined, 3]);
  });
});
