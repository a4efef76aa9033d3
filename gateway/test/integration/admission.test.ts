import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { actor, waitFor } from '@community/test-harness';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §18: the gateway bounds what it sends each service at once and how long a request may
// wait for a slot (QUEUE_TIMEOUT_MS); beyond that it answers 503 overloaded with Retry-After: 1,
// uncharged. posts-service sits behind a stand-in the test steers: passed through, each request
// delayed, or held until let go (its /healthz always passes, so the gateway sees a slow service,
// not a stopped one).

interface Stub {
  url: string;
  /** Added before each request is passed on. */
  delayMs: number;
  /** Requests are held, not passed on, until `release()`. */
  holding: boolean;
  held(): number;
  release(): void;
  stop(): Promise<void>;
}

async function startStub(target: string): Promise<Stub> {
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const pass = () => {
      const upstream = http.request(new URL(req.url!, target), { method: req.method, headers: req.headers });
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url === '/healthz') pass();
    else if (stub.holding) waiting.push(pass);
    else setTimeout(pass, stub.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: Stub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delayMs: 0,
    holding: false,
    held: () => waiting.length,
    release() {
      stub.holding = false;
      for (const pass of waiting.splice(0)) pass();
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return stub;
}

let stack: Stack;
let stub: Stub;
let key: string;
beforeAll(async () => {
  stack = await startStack('gw-admission', { IN_FLIGHT_LIMITS: 'enterprise:256' });
  stub = await startStub(stack.postsUrl);
  const member = await memberWithKey(stack, ['read']);
  key = member.key;
  // Enough budget for the load below; every answer still shows what it cost.
  const plan = { plan: 'enterprise', hourly_limit: 1_000_000, daily_limit: 1_000_000 };
  const res = await stack.users(actor(1, 'admin', ['admin']), 'PUT', `/users/${member.id}/plan`, {
    body: plan,
  });
  if (res.status !== 200) throw new Error(res.text);
}, 60_000);
afterAll(async () => {
  stub.release();
  await stack.stop();
  await stub.stop();
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${stack.gateway}/metrics`)).text();
  const found = new RegExp(`^${name}\\{[^}]*upstream="posts"[^}]*\\} (\\S+)$`, 'm').exec(text);
  if (!found) throw new Error(`${name} not in /metrics`);
  return Number(found[1]);
}

const limit = () => metric('gateway_upstream_concurrency_limit');
const remaining = (headers: Headers) => Number(headers.get('x-ratelimit-remaining'));

/** `workers` clients each reading posts back to back until `done()` holds; the statuses they got. */
async function load(
  workers: number,
  done: (answered: number) => Promise<boolean> | boolean,
  timeoutMs: number,
) {
  const statuses = new Map<string, number>();
  let answered = 0;
  let finished = false;
  const worker = async () => {
    while (!finished) {
      const res = await fetch(`${stack.gateway}/api/v1/posts`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const kind =
        res.status === 503 ? `503 ${((await res.json()) as { error: string }).error}` : String(res.status);
      if (res.status !== 503) await res.arrayBuffer();
      statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
      answered++;
    }
  };
  const running = Array.from({ length: workers }, worker);
  try {
    await waitFor(() => done(answered), { timeoutMs, intervalMs: 100, what: 'the load to reach its goal' });
  } finally {
    finished = true;
    await Promise.all(running);
  }
  return Object.fromEntries(statuses);
}

describe('a stalled upstream, at a bound of 4', () => {
  const held: Promise<Response>[] = [];
  beforeAll(async () => {
    await stack.restartGateway({
      POSTS_SERVICE_URL: stub.url,
      UPSTREAM_MAX_IN_FLIGHT: '4',
      QUEUE_TIMEOUT_MS: '200',
    });
  });

  it('fills its bound, then answers 503 overloaded with Retry-After: 1 within QUEUE_TIMEOUT_MS, uncharged', async () => {
    stub.holding = true;
    for (let i = 0; i < 4; i++)
      held.push(fetch(`${stack.gateway}/api/v1/posts`, { headers: { authorization: `Bearer ${key}` } }));
    await waitFor(() => stub.held() === 4, { what: 'four requests held by posts-service' });
    expect(await metric('gateway_upstream_in_flight')).toBe(4);

    const before = await gw(stack, 'GET', '/api/v1/users/me', { key });
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const refused = await gw(stack, 'GET', '/api/v1/posts', { key });
      const elapsed = performance.now() - started;
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe('overloaded');
      expect(refused.headers.get('retry-after')).toBe('1');
      // It waited its turn, and no longer: nowhere near UPSTREAM_TIMEOUT_MS (10 s).
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(3_000);
      // Counted, then given back: the budget shows it uncharged.
      expect(remaining(refused.headers)).toBe(remaining(before.headers));
    }
    const after = await gw(stack, 'GET', '/api/v1/users/me', { key });
    expect(remaining(after.headers)).toBe(remaining(before.headers) - 1);
    expect(stub.held()).toBe(4);
    expect(await metric('gateway_upstream_rejected_total')).toBe(3);
    expect(await metric('gateway_upstream_queued')).toBe(0);
  });

  it('is used fully again once it recovers', async () => {
    stub.release();
    expect((await Promise.all(held)).map((res) => res.status)).toEqual([200, 200, 200, 200]);
    await waitFor(async () => (await metric('gateway_upstream_in_flight')) === 0, {
      what: 'no request in flight',
    });

    // As many at once as the bound, and three times as many again: each is admitted and answered.
    const burst = await Promise.all(
      Array.from({ length: 4 }, () => gw(stack, 'GET', '/api/v1/posts', { key })),
    );
    expect(burst.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    for (let i = 0; i < 3; i++) {
      const again = await Promise.all(
        Array.from({ length: 4 }, () => gw(stack, 'GET', '/api/v1/posts', { key })),
      );
      expect(again.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    }
    expect(await limit()).toBe(4);
    expect(await metric('gateway_upstream_rejected_total')).toBe(3);
  });

  it('counts how long a request admitted after a wait waited for its slot', async () => {
    const waited = (suffix: string) => metric(`gateway_upstream_queue_wait_seconds_${suffix}`);
    const [countBefore, sumBefore] = [await waited('count'), await waited('sum')];
    stub.holding = true;
    const first = Array.from({ length: 4 }, () => gw(stack, 'GET', '/api/v1/posts', { key }));
    await waitFor(() => stub.held() === 4, { what: 'four requests held by posts-service' });
    const fifth = gw(stack, 'GET', '/api/v1/posts', { key });
    await waitFor(async () => (await metric('gateway_upstream_queued')) === 1, { what: 'a fifth waiting' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    stub.release();
    expect((await Promise.all([...first, fifth])).map((res) => res.status)).toEqual([
      200, 200, 200, 200, 200,
    ]);
    // Those admitted at once are not counted: only the fifth, after 50 ms or more and less than its 200.
    expect(await waited('count')).toBe(countBefore + 1);
    const wait = (await waited('sum')) - sumBefore;
    expect(wait).toBeGreaterThanOrEqual(0.05);
    expect(wait).toBeLessThan(0.2);
  });
});

describe('the adaptive bound', () => {
  beforeAll(async () => {
    stub.delayMs = 300;
    await stack.restartGateway({ POSTS_SERVICE_URL: stub.url, QUEUE_TIMEOUT_MS: '200' });
  });
  afterAll(() => {
    stub.delayMs = 0;
  });

  // Answers in 300 ms, then in 3 s: far enough apart that a busy machine's pauses cannot blur them.
  // Only a full bound is cut (fewer clients than the bound: admission.test.ts in test/unit): 40
  // clients fill the starting 32. Ten keep a bound of up to 20 busy, and the bound grows only while
  // it is half used.
  it('shrinks during a slow spell and grows back after it', async () => {
    await load(10, (answered) => answered >= 100, 60_000);
    const before = await limit();
    expect(before).toBeGreaterThanOrEqual(16);

    stub.delayMs = 3_000;
    const during = await load(40, async () => (await limit()) <= 8, 60_000);
    // Whoever found no slot in time was told so at once; nobody got another error.
    expect(Object.keys(during).filter((kind) => kind !== '200' && kind !== '503 overloaded')).toEqual([]);

    stub.delayMs = 300;
    await load(10, async () => (await limit()) >= 16, 60_000);
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => gw(stack, 'GET', '/api/v1/posts', { key })),
    );
    expect(burst.map((res) => res.status)).toEqual(Array(10).fill(200));
  }, 240_000);
});

describe('waiting callers take turns', () => {
  let light: string;
  beforeAll(async () => {
    stub.delayMs = 10;
    light = (await memberWithKey(stack, ['read'])).key;
    await stack.restartGateway({
      POSTS_SERVICE_URL: stub.url,
      UPSTREAM_MAX_IN_FLIGHT: '1',
      QUEUE_TIMEOUT_MS: '200',
    });
  });
  afterAll(() => {
    stub.delayMs = 0;
  });

  // One slot, 10 ms a request: forty requests of one account always waiting would make a request
  // in arrival order wait ~400 ms, past the 200 ms bound. A freed slot goes to the next caller in
  // turn, so the other account's request waits for one answer at most.
  it('a caller with a few requests gets through while another keeps the queue full', async () => {
    const lightStatuses: number[] = [];
    const heavy = load(40, () => lightStatuses.length === 10, 60_000);
    await waitFor(async () => (await metric('gateway_upstream_queued')) >= 10, {
      what: 'the heavy caller queueing',
    });
    for (let i = 0; i < 10; i++)
      lightStatuses.push((await gw(stack, 'GET', '/api/v1/posts', { key: light })).status);
    const heavyStatuses = await heavy;
    expect(lightStatuses).toEqual(Array(10).fill(200));
    // The refusals fell on the caller that sent the most.
    expect(heavyStatuses['503 overloaded']).toBeGreaterThan(0);
  }, 90_000);
});
