import type { Actor } from '@community/contracts';
import { actor, waitFor, type ApiResponse } from '@community/test-harness';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

// Issue 41, finding 4: a replay is not an amplifier (DESIGN.md §21). One replay at a time per
// endpoint; at most 3 replays per endpoint and 20,000 replayed deliveries per account in any 24 hours.

const DAY = 24 * 3600;

let h: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('replay-limits');
});
afterAll(() => h.stop());

const receiver = receiversClosedAfterAll();

async function subscribe(who: Actor, url: string) {
  const res = await h.call(who, 'POST', '/webhooks', { body: { url, events: ['user.registered'] } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number };
}

/** `n` events in the log at a second of their own, an hour or more ago: the window that holds just them. */
let windows = 0;
async function logEvents(n: number): Promise<{ since: string; until: string }> {
  const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000 - ++windows * 60_000);
  const tag = `w${windows}_`;
  await h.sql`
    insert into events (id, event_id, event, body, created_at)
    select 'msg_' || ${tag} || i, 'evt_' || ${tag} || i, 'user.registered',
           '{"event":"user.registered","timestamp":"2026-01-01T00:00:00Z","data":{"id":1,"username":"u","display_name":"U"}}',
           ${at}
    from generate_series(1, ${n}) i`;
  const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { since: iso(at), until: iso(new Date(at.getTime() + 1000)) };
}

const replay = (who: Actor, endpointId: number, window: { since: string; until: string }) =>
  h.call(who, 'POST', `/webhooks/${endpointId}/replay`, { body: window });

const pending = async (endpointId: number) =>
  (
    await h.sql<{ n: number }[]>`
      select count(*)::int as n from deliveries where endpoint_id = ${endpointId} and status = 'pending'`
  )[0]!.n;

const done = (endpointId: number) =>
  waitFor(async () => (await pending(endpointId)) === 0, { what: 'the replay delivered', timeoutMs: 10_000 });

/** A 429 replay_limited whose Retry-After and retry_after agree, within `slack` seconds of `seconds`. */
function expectLimited(res: ApiResponse, seconds: number, slack = 120) {
  expect([res.status, res.body.error]).toEqual([429, 'replay_limited']);
  expect(Number(res.headers.get('retry-after'))).toBe(res.body.retry_after);
  expect(res.body.retry_after).toBeGreaterThan(seconds - slack);
  expect(res.body.retry_after).toBeLessThanOrEqual(seconds);
}

describe('one replay at a time per endpoint', () => {
  it('refuses a second replay of an endpoint while the first is running with 409 replay_in_progress', async () => {
    const slow = await receiver(() => ({ status: 204, delayMs: 1_000 }));
    const endpoint = await subscribe(owner, slow.url);
    const window = await logEvents(3);
    const first = await replay(owner, endpoint.id, window);
    expect([first.status, first.body.data]).toEqual([202, { queued: 3 }]);

    const second = await replay(owner, endpoint.id, window);
    expect([second.status, second.body.error]).toEqual([409, 'replay_in_progress']);
    expect(slow.received.length).toBeLessThanOrEqual(3);

    // Once every delivery the first queued is done, the endpoint may replay again.
    await done(endpoint.id);
    expect((await replay(owner, endpoint.id, window)).status).toBe(202);
  });

  it('answers exactly one of eight parallel replays of one endpoint with 202, the others 409', async () => {
    const slow = await receiver(() => ({ status: 204, delayMs: 1_000 }));
    const endpoint = await subscribe(owner, slow.url);
    const window = await logEvents(5);
    const answers = await Promise.all(Array.from({ length: 8 }, () => replay(owner, endpoint.id, window)));
    expect(answers.map((res) => res.status).sort()).toEqual([202, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((res) => res.status === 409).map((res) => res.body.error)).toEqual(
      Array(7).fill('replay_in_progress'),
    );
    await done(endpoint.id);
    expect(slow.received).toHaveLength(5);
  });
});

describe('daily allowances', () => {
  it('allows an endpoint 3 replays in 24 hours, then 429 replay_limited until the oldest is a day old', async () => {
    const fast = await receiver();
    const endpoint = await subscribe(owner, fast.url);
    const window = await logEvents(1);
    for (let i = 0; i < 3; i++) {
      expect((await replay(owner, endpoint.id, window)).status).toBe(202);
      await done(endpoint.id);
    }
    const fourth = await replay(owner, endpoint.id, window);
    expectLimited(fourth, DAY);
    expect(fourth.body.message).toMatch(/3 replays/);

    // A rolling 24 hours: the oldest replay, 23 h old, frees its place in an hour; at 24 h, now.
    const oldest = async (age: string) => h.sql`
      update replays set created_at = now() - ${age}::interval
      where id = (select min(id) from replays where endpoint_id = ${endpoint.id})`;
    await oldest('23 hours');
    expectLimited(await replay(owner, endpoint.id, window), 3600);
    await oldest('24 hours 1 second');
    expect((await replay(owner, endpoint.id, window)).status).toBe(202);
    expect(await pending(endpoint.id)).toBeLessThanOrEqual(1);
  });

  it('holds an account to 20,000 replayed deliveries in 24 hours, even under parallel replays of its endpoints', async () => {
    const account = actor(601, 'member', ['webhooks']);
    const endpoints = [];
    for (let i = 0; i < 4; i++) endpoints.push(await subscribe(account, 'http://127.0.0.1:9/hook'));
    // 19,990 replayed two hours ago (as two replays of 9,995 would leave it): 10 left.
    await h.sql`
      insert into replays (endpoint_id, user_id, queued, created_at)
      values (${endpoints[0]!.id}, ${account.userId}, 19990, now() - interval '2 hours')`;
    const window = await logEvents(5);
    const answers = await Promise.all(endpoints.map((endpoint) => replay(account, endpoint.id, window)));
    expect(answers.map((res) => res.status).sort()).toEqual([202, 202, 429, 429]);
    for (const refused of answers.filter((res) => res.status === 429)) {
      expectLimited(refused, DAY - 2 * 3600);
      expect(refused.body.message).toMatch(/20000/);
    }
    const [queued] = await h.sql<{ n: number }[]>`
      select count(*)::int as n from deliveries where endpoint_id = any(${endpoints.map((e) => e.id)}::int[])`;
    expect(queued!.n).toBe(10);
  });

  it('counts nothing for a replay of an empty window', async () => {
    const endpoint = await subscribe(owner, (await receiver()).url);
    const empty = { since: '2026-01-01T00:00:00Z', until: '2026-01-01T00:00:01Z' };
    for (let i = 0; i < 4; i++) {
      const res = await replay(owner, endpoint.id, empty);
      expect([res.status, res.body.data]).toEqual([202, { queued: 0 }]);
    }
  });
});
