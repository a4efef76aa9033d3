import { waitFor } from '@community/test-harness';
import { claimDue } from '../../src/db/deliveries.repository';
import { receiversClosedAfterAll, startReceiver } from '../support/receiver';
import { owner, startWebhookService, stranger, type WebhooksHarness } from '../support/webhooks-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('fair-dispatch');
});
afterAll(() => h.stop());

const receiver = receiversClosedAfterAll();

/** What a dispatcher with 200 slots claims with: 10 per fast-lane endpoint, 1 per slow one, 20 for the slow lane. */
const LIMITS = { perEndpoint: 10, perUser: 50, perSlowEndpoint: 1, slowLimit: 20, leaseSeconds: 60 };

/** A URL on 127.0.0.1 where nothing listens: every attempt is refused. */
async function deadUrl(): Promise<string> {
  const r = await startReceiver();
  await r.close();
  return r.url;
}

async function subscribe(who: typeof owner, url: string, events: string[]) {
  const res = await h.call(who, 'POST', '/webhooks', { body: { url, events } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number };
}

const statuses = async (endpointId: number) =>
  (
    await h.sql<
      { status: string }[]
    >`select status from deliveries where endpoint_id = ${endpointId} order by id`
  ).map((row) => row.status);

const fannedOut = (endpointId: number, n: number) =>
  waitFor(async () => (await statuses(endpointId)).length === n, { what: `${n} deliveries stored` });

describe('an endpoint that goes away takes its backlog with it', () => {
  let paused: WebhooksHarness;
  beforeAll(async () => {
    // A consumer without a dispatcher: deliveries stay pending until we look.
    paused = await startWebhookService('fair-dispatch-paused', {}, { dispatch: false });
  });
  afterAll(() => paused.stop());

  const pausedStatuses = async (endpointId: number) =>
    (
      await paused.sql<
        { status: string; nextAttemptAt: Date | null }[]
      >`select status, next_attempt_at from deliveries where endpoint_id = ${endpointId}`
    ).map((row) => [row.status, row.nextAttemptAt]);

  async function backlog(n: number) {
    const res = await paused.call(owner, 'POST', '/webhooks', {
      body: { url: await deadUrl(), events: ['post.created'] },
    });
    const id = (res.body.data as { id: number }).id;
    for (let i = 0; i < n; i++) await paused.publish('post.created', { id: i + 1, title: 't', author_id: 1 });
    await waitFor(async () => (await pausedStatuses(id)).length === n, { what: 'deliveries stored' });
    return id;
  }

  it('cancels the pending deliveries of a deleted endpoint', async () => {
    const id = await backlog(3);
    expect((await paused.call(owner, 'DELETE', `/webhooks/${id}`)).status).toBe(200);
    expect(await pausedStatuses(id)).toEqual([
      ['cancelled', null],
      ['cancelled', null],
      ['cancelled', null],
    ]);
  });

  it('cancels the pending deliveries of an endpoint turned off, and lists them as cancelled', async () => {
    const id = await backlog(2);
    const res = await paused.call(owner, 'PUT', `/webhooks/${id}`, { body: { enabled: false } });
    expect(res.status).toBe(200);
    const listed = await paused.call(owner, 'GET', `/webhooks/${id}/deliveries?status=cancelled`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data[0]).toMatchObject({ status: 'cancelled', next_attempt_at: null });
    expect((await paused.call(owner, 'GET', `/webhooks/${id}/deliveries?status=pending`)).body.data).toEqual(
      [],
    );
  });

  // A DELETE cancelling a backlog and a claim leasing part of it both lock many of its rows. Taken in
  // different orders they deadlocked, and the DELETE answered 500 (seen in CI under load).
  it('claims around delivery rows another transaction holds, never waiting on them', async () => {
    const id = await backlog(3);
    // An endpoint that has answered in time: in the fast lane, with 10 slots.
    await paused.sql`update endpoints set fast_lane = true where id = ${id}`;
    const [held] = await paused.sql<{ id: number }[]>`
      select id from deliveries where endpoint_id = ${id} order by id limit 1`;
    let claimed: number[] = [];
    await paused.sql.begin(async (holder) => {
      await holder`select id from deliveries where id = ${held!.id} for update`;
      await paused.sql.begin(async (tx) => {
        // A claim that waited on the held row would fail here rather than hang.
        await tx`set local lock_timeout = '2s'`;
        const rows = await claimDue(tx, { ...LIMITS, limit: 100 });
        claimed = rows.filter((row) => row.endpointId === id).map((row) => row.id);
      });
    });
    expect(claimed).toHaveLength(2);
    expect(claimed).not.toContain(held!.id);
    // The DELETE waits for the claim's rows instead, and cancels them too.
    expect((await paused.call(owner, 'DELETE', `/webhooks/${id}`)).status).toBe(200);
    expect((await pausedStatuses(id)).map(([status]) => status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it('never queues a replay for an endpoint deleted while the replay was on its way', async () => {
    const id = await backlog(2);
    const since = new Date(Date.now() - 60_000).toISOString();
    let replayed: Promise<{ status: number }> | undefined;
    await paused.sql.begin(async (deleting) => {
      // A DELETE half done: the endpoint row is locked, and gone once it commits.
      await deleting`update endpoints set deleted_at = now(), enabled = false where id = ${id}`;
      await deleting`update deliveries set status = 'cancelled', next_attempt_at = null where endpoint_id = ${id}`;
      replayed = paused.call(owner, 'POST', `/webhooks/${id}/replay`, { body: { since } });
      await waitFor(
        async () =>
          (
            await paused.sql<{ n: number }[]>`
              select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`
          )[0]!.n > 0 || (await Promise.race([replayed!.then(() => true), sleep(50).then(() => false)])),
        { what: 'the replay waiting on a lock, or answered' },
      );
    });
    expect((await replayed!).status).toBe(404);
    expect((await pausedStatuses(id)).map(([status]) => status)).toEqual(['cancelled', 'cancelled']);
  });
});

describe('dispatch', () => {
  it('cancels the backlog of an endpoint disabled by a 410', async () => {
    // Answered late enough that all 15 are stored before the endpoint is disabled, even on a loaded
    // machine (a 300 ms answer once disabled it while the last events were still being fanned out).
    const gone = await receiver(() => ({ status: 410, delayMs: 2_000 }));
    const endpoint = await subscribe(owner, gone.url, ['comment.created']);
    // One that has answered in time before: in the fast lane, with its 10 attempts in flight.
    await h.sql`update endpoints set fast_lane = true where id = ${endpoint.id}`;
    // More than the 10 attempts one endpoint may have in flight: 5 wait while the first 10 hear 410.
    for (let i = 0; i < 15; i++) await h.publish('comment.created', { id: i + 1, post_id: 1, author_id: 1 });
    await fannedOut(endpoint.id, 15);
    const attempts = async () =>
      (
        await h.sql<{ n: number }[]>`
          select coalesce(sum(attempts), 0)::int as n from deliveries where endpoint_id = ${endpoint.id}`
      )[0]!.n;
    await waitFor(
      async () =>
        !(await statuses(endpoint.id)).includes('pending') && (await attempts()) === gone.received.length,
      { what: 'every attempt recorded and nothing left pending', timeoutMs: 10_000 },
    );
    const final = await statuses(endpoint.id);
    expect(final.filter((s) => s === 'cancelled').length).toBeGreaterThan(0);
    expect(final.filter((s) => s === 'failed').length).toBe(gone.received.length);
  });

  it("delivers a healthy endpoint's event at once behind 1,100 due rows of a deleted endpoint", async () => {
    // Rows left pending on an endpoint that is gone (as a crash between delete and cancel would):
    // the due query must look at live endpoints before it takes its limit.
    const [dead] = await h.sql<{ id: number }[]>`
      insert into endpoints (user_id, url, events, secret, enabled, deleted_at)
      values (${stranger.userId}, 'http://127.0.0.1:9/hook', '{post.deleted}', 'whsec_x', false, now()) returning id`;
    await h.sql`
      insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at)
      select ${dead!.id}, 'evt_dead_' || i, 'post.deleted', '{}', 'msg_dead_' || i, now() - interval '1 hour'
      from generate_series(1, 1100) as i`;
    const healthy = await receiver();
    await subscribe(owner, healthy.url, ['user.registered']);
    await h.publish('user.registered', { id: 9, username: 'ada', display_name: 'Ada' });
    await waitFor(async () => healthy.received.length === 1, { what: 'healthy delivery', timeoutMs: 5_000 });
  });
});

describe('the due query', () => {
  let users: number[];
  beforeAll(async () => {
    // User 900 has three endpoints with 20 old due deliveries each; user 901 one with a newer one.
    users = [900, 901];
    const endpoint = (userId: number) =>
      h.sql<{ id: number }[]>`
        insert into endpoints (user_id, url, events, secret, fast_lane)
        values (${userId}, 'http://127.0.0.1:9/hook', '{post.updated}', 'whsec_x', true)
        returning id`.then(([row]) => row!.id);
    const busy = [await endpoint(900), await endpoint(900), await endpoint(900)];
    const other = await endpoint(901);
    for (const id of busy) {
      await h.sql`
        insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at)
        select ${id}, 'evt_' || ${id} || '_' || i, 'post.updated', '{}', 'msg_' || ${id} || '_' || i,
               now() + interval '1 hour' - make_interval(secs => 1000 - i)
        from generate_series(1, 20) as i`;
    }
    await h.sql`
      insert into deliveries (endpoint_id, event_id, event, body, message_id, next_attempt_at)
      values (${other}, 'evt_other', 'post.updated', '{}', 'msg_other', now() + interval '1 hour')`;
  });

  // The rows above are due an hour from now: the running dispatcher leaves them alone, and each
  // claim below looks an hour ahead by moving them back, inside a transaction it then rolls back.
  // `leasedPerEndpoint` of each of user 900's endpoints' deliveries are in flight (leased, by any replica).
  async function claim(limits: { limit: number; perUser?: number; leasedPerEndpoint?: number }) {
    let owners: number[] = [];
    await h.sql
      .begin(async (tx) => {
        await tx`
          update deliveries d set next_attempt_at = next_attempt_at - interval '2 hours'
          from endpoints e where e.id = d.endpoint_id and e.user_id = any(${users}::int[]) and d.status = 'pending'`;
        await tx`
          update deliveries set leased_until = now() + interval '1 minute', next_attempt_at = now() + interval '1 minute'
          where id in (
            select id from (
              select d.id, row_number() over (partition by d.endpoint_id order by d.id) as n
              from deliveries d join endpoints e on e.id = d.endpoint_id where e.user_id = 900
            ) ranked where n <= ${limits.leasedPerEndpoint ?? 0})`;
        const claimed = await claimDue(tx as never, {
          ...LIMITS,
          limit: limits.limit,
          perUser: limits.perUser ?? 50,
        });
        owners = claimed.map((row) => row.userId).sort();
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
    return owners;
  }

  it('takes the endpoints round-robin, so a newer delivery of another user is not behind an old backlog', async () => {
    expect(await claim({ limit: 4 })).toEqual([900, 900, 900, 901]);
  });

  it('takes at most 10 per endpoint', async () => {
    expect(await claim({ limit: 100 })).toHaveLength(31);
  });

  it('gives an endpoint only the slots its leases leave, whoever holds them', async () => {
    // 7 leased of 10 on each of the three: 3 more each.
    expect(await claim({ limit: 100, leasedPerEndpoint: 7 })).toHaveLength(3 * 3 + 1);
    expect(await claim({ limit: 100, leasedPerEndpoint: 10 })).toEqual([901]);
  });

  it("gives nothing more to a user whose endpoints already hold the user's share of slots", async () => {
    // 3 leased on each of three endpoints: 9 of the user's share.
    expect(await claim({ limit: 100, perUser: 9, leasedPerEndpoint: 3 })).toEqual([901]);
    expect(await claim({ limit: 100, perUser: 14, leasedPerEndpoint: 3 })).toHaveLength(5 + 1);
  });
});
