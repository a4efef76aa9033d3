/**
 * Overload (DESIGN.md §18, issue #47): `npm run bench:overload`, loopback only, bounded.
 *
 * users-service, posts-service and the gateway run as their images do, each a process of its own,
 * all pinned to CPU 0 with `taskset`; this process, the load generator, pins itself to CPU 1.
 * PostgreSQL, Redis and RabbitMQ are the machine's own and float. Load goes through the gateway,
 * open loop (bench/open-loop.ts), on a mix of 7 × GET /api/v1/posts/{id} (100 posts in rotation),
 * 2 × GET /api/v1/posts?limit=20 and 1 × GET /api/v1/posts?q=lorem in every 10, spread over 20
 * enterprise accounts whose hourly and daily budgets (10^8, 10^9) no run comes near.
 * 1. Warm-up and a first guess: BENCH_CLOSED_CONNECTIONS (32) callers back to back for
 *    BENCH_STEP_SECONDS (5): X answers a second.
 * 2. Unloaded: BENCH_UNLOADED_RATE (50) a second for 15 s: its p50 and p99.
 * 3. Capacity: open-loop steps of BENCH_STEP_SECONDS from 0.1 X up to 3.6 X; capacity is the
 *    highest rate whose answers are ≥ 99 % 2xx with p99 ≤ 5 × the unloaded p99 (the bound §18
 *    sets the admitted answers under overload); a step that misses is run once more before the
 *    search ends.
 * 4. Overload: 3 × capacity for BENCH_OVERLOAD_SECONDS (30), and beside it a light client on
 *    another account (BENCH_LIGHT_RATE, 3 a second, on a connection of its own); the resident
 *    memory of every process every 5 s. Where the time went, from the services' own metrics over
 *    the 30 s: how long admitted requests waited for a slot, each process's event loop delay and
 *    CPU, and the share of slow answers at the client beside each service's own measure.
 *
 * Env also: BENCH_CONNECTIONS (1024: the generator's connections to the gateway), BENCH_UNBOUNDED
 * (unset: when 1, step 4 runs again against a second gateway of this checkout whose bound is out of
 * reach, UPSTREAM_MAX_IN_FLIGHT=1000000: the gateway as it was before admission, in the same run,
 * after a warm-up),
 * BENCH_QUEUE_TIMEOUT_MS (the gateway's QUEUE_TIMEOUT_MS; unset, its default), BENCH_RUN,
 * BENCH_LOG_LEVEL (warn), BENCH_NAMESPACE (ol), BENCH_OL_DATABASE_URL, BENCH_REDIS_URL, BENCH_AMQP_URL.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@community/test-harness';
import { gatewayConfigSchema } from '../gateway/src/config';
import { cpuSnapshot, cpuUsedMs } from './cpu';
import { benchPlace, clearBenchPlace, dataServiceEnv, intEnv } from './infra';
import { closedLoop, loadPool, openLoop, type Call, type Tally } from './open-loop';
import {
  build,
  BenchChildren,
  DEPLOYED_NODE_ARGS,
  commandLine,
  runBench,
  serviceArgs,
  waitHttp,
  type Child,
} from './processes';
import { benchAccount, enterpriseAccount } from './seed-posts';

const root = path.resolve(__dirname, '..');
const place = benchPlace('ol', 'BENCH_OL_DATABASE_URL');
const SERVICES = ['posts-service', 'users-service'];
const STEP_SECONDS = intEnv('BENCH_STEP_SECONDS', 5);
const OVERLOAD_SECONDS = intEnv('BENCH_OVERLOAD_SECONDS', 30);
const UNLOADED_RATE = intEnv('BENCH_UNLOADED_RATE', 50);
const LIGHT_RATE = intEnv('BENCH_LIGHT_RATE', 3);
const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 1024);
const CLOSED_CONNECTIONS = intEnv('BENCH_CLOSED_CONNECTIONS', 32);
const ACCOUNTS = 20;
const POSTS = 100;
const QUEUE_TIMEOUT_MS = gatewayConfigSchema.shape.QUEUE_TIMEOUT_MS.parse(process.env.BENCH_QUEUE_TIMEOUT_MS);
/** Steps of the capacity search, × the closed loop's rate (a cold stack's: it may well be passed). */
const STEPS = [0.1, 0.15, 0.2, 0.3, 0.4, 0.55, 0.7, 0.85, 1, 1.2, 1.45, 1.75, 2.1, 2.5, 3, 3.6];
const RSS_EVERY_MS = 5_000;
const [STACK_CPU, GENERATOR_CPU] = ['0', '1'];

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ol-'));
const children = new BenchChildren({ cwd: root, workDir, logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (value: number) => value.toFixed(1);

/** The service in `dir`, as its image runs it, on the stack's CPU. */
async function pinned(name: string, dir: string, env: NodeJS.ProcessEnv, portVar: string) {
  const port = await freePort();
  const args = ['-c', STACK_CPU, process.execPath, ...serviceArgs(dir, DEPLOYED_NODE_ARGS)];
  const child = children.start(
    name,
    'taskset',
    args,
    children.serviceEnv({ ...env, [portVar]: String(port) }),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHttp(child, `${url}/readyz`);
  return { child, url };
}

async function startStack(token: string) {
  const common = dataServiceEnv(place, token);
  // One after the other: both migrate the same database on first start. 21 accounts register from here.
  const users = await pinned(
    'users',
    'users-service',
    { ...common, REGISTRATIONS_PER_HOUR_PER_IP: '100' },
    'USERS_SERVICE_PORT',
  );
  const posts = await pinned('posts', 'posts-service', common, 'POSTS_SERVICE_PORT');
  const gateway = (name: string, env: NodeJS.ProcessEnv = {}) =>
    pinned(
      name,
      'gateway',
      {
        INTERNAL_TOKEN: token,
        AMQP_URL: place.amqpUrl,
        AMQP_EXCHANGE: place.exchange,
        REDIS_URL: place.redisUrl,
        REDIS_PREFIX: place.redisPrefix,
        USERS_SERVICE_URL: users.url,
        POSTS_SERVICE_URL: posts.url,
        WEBHOOK_SERVICE_URL: 'http://127.0.0.1:9',
        SHUTDOWN_GRACE_MS: '1000',
        QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
        ...env,
      },
      'GATEWAY_PORT',
    );
  const gateways = [await gateway('gateway')];
  if (process.env.BENCH_UNBOUNDED === '1')
    gateways.push(await gateway('unbounded', { UPSTREAM_MAX_IN_FLIGHT: '1000000' }));
  return { users, posts, gateways };
}

/** The i-th request of the mix, from one of `keys` in turn. */
function mix(keys: string[], ids: number[]) {
  return (i: number): Call => {
    const slot = Math.floor(i / keys.length) % 10;
    const path =
      slot < 7
        ? `/api/v1/posts/${ids[i % ids.length]}`
        : slot < 9
          ? '/api/v1/posts?limit=20'
          : '/api/v1/posts?q=lorem';
    return { path, key: keys[i % keys.length]! };
  };
}

/** Resident memory (MiB) of each process every 5 s while `work` runs. */
async function sampleRss<T>(pids: Record<string, number>, work: Promise<T>) {
  const rss = (pid: number) =>
    Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(pids).map((name) => [name, []]));
  const take = () => Object.entries(pids).forEach(([name, pid]) => samples[name]!.push(rss(pid)));
  take();
  const timer = setInterval(take, RSS_EVERY_MS);
  try {
    return { result: await work, samples };
  } finally {
    clearInterval(timer);
    take();
  }
}

function line(label: string, tally: Tally): string {
  const s = tally.summary();
  return (
    `${label}: ${tally.sent} sent, ${s.goodput.toFixed(0)} 2xx/s, ${(tally.okShare * 100).toFixed(2)} % 2xx, ` +
    `p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms; generator late p99 ${ms(s.lateP99)} ms, max ${ms(s.lateMax)} ms`
  );
}

async function findCapacity(gatewayUrl: string, pick: (i: number) => Call) {
  const pool = loadPool(gatewayUrl, CONNECTIONS);
  try {
    const closed = await closedLoop(pool, { concurrency: CLOSED_CONNECTIONS, seconds: STEP_SECONDS }, pick);
    console.log(
      line(`closed loop, ${CLOSED_CONNECTIONS} callers, ${STEP_SECONDS} s`, closed) +
        ` (${closed.kindsLine()})`,
    );
    const unloaded = await openLoop(pool, { rate: UNLOADED_RATE, seconds: 15 }, pick);
    console.log(line(`unloaded, ${UNLOADED_RATE}/s for 15 s`, unloaded));
    const unloadedP99 = unloaded.summary().p99;
    const bound = 5 * unloadedP99;
    let capacity = 0;
    const holds = async (label: string, rate: number) => {
      await sleep(1000);
      const tally = await openLoop(pool, { rate, seconds: STEP_SECONDS }, pick);
      const ok = tally.okShare >= 0.99 && tally.summary().p99 <= bound;
      console.log(line(label, tally) + (ok ? '' : `  ✗ (${tally.kindsLine()})`));
      return ok;
    };
    for (const step of STEPS) {
      const rate = Math.round(step * closed.summary().goodput);
      // A step's p99 is its 1 % slowest: one stall of this shared machine can put it over the bound
      // at any rate, so a step that misses is run once more before the search ends there.
      const label = `step ${step} × X = ${rate}/s`;
      if (!(await holds(label, rate)) && !(await holds(`${label} again`, rate))) break;
      capacity = rate;
    }
    if (!capacity) throw new Error(`no step met ≥ 99 % 2xx with p99 ≤ ${ms(bound)} ms`);
    return { capacity, unloaded: unloaded.summary(), bound };
  } finally {
    await pool.close();
  }
}

/** Another gateway, as warm as the first after its capacity search: a closed loop's step. */
async function warmUp(gatewayUrl: string, pick: (i: number) => Call): Promise<void> {
  const pool = loadPool(gatewayUrl, CONNECTIONS);
  try {
    await closedLoop(pool, { concurrency: CLOSED_CONNECTIONS, seconds: STEP_SECONDS }, pick);
    await openLoop(pool, { rate: UNLOADED_RATE, seconds: STEP_SECONDS }, pick);
  } finally {
    await pool.close();
  }
}

/** 3 × capacity from the accounts of `pick` and, beside it, the light client's `light` calls. */
async function overload(
  gateway: { child: Child; url: string },
  rate: number,
  load: { pick: (i: number) => Call; light: Call[]; services: Record<string, Service> },
) {
  const { pick, light } = load;
  const pool = loadPool(gateway.url, CONNECTIONS);
  const lightPool = loadPool(gateway.url, 1);
  const services = { ...load.services, [gateway.child.name]: gateway };
  const pids = {
    ...Object.fromEntries(Object.entries(services).map(([name, { child }]) => [name, child.proc.pid!])),
    generator: process.pid,
  };
  const children = Object.fromEntries(Object.entries(services).map(([name, { child }]) => [name, child]));
  try {
    const scraped = await scrape(services); // each scrape starts the next event-loop period
    const cpuBefore = cpuSnapshot(children, place.databaseName);
    const { result, samples } = await sampleRss(
      pids,
      Promise.all([
        openLoop(pool, { rate, seconds: OVERLOAD_SECONDS }, pick),
        openLoop(lightPool, { rate: LIGHT_RATE, seconds: OVERLOAD_SECONDS }, (i) => light[i % light.length]!),
      ]),
    );
    const cpu = cpuUsedMs(cpuBefore, cpuSnapshot(children, place.databaseName));
    const after = await scrape(services);
    return {
      heavy: result[0],
      light: result[1],
      samples,
      lags: Object.values(after).map(({ lag }) => lag),
      slow: slowAnswers(result[0].admitted, scraped, after),
      lateRefusals: lateRefusals(scraped[gateway.child.name]!, after[gateway.child.name]!),
      waits: queueWaits(scraped[gateway.child.name]!, after[gateway.child.name]!),
      metrics: after[gateway.child.name]!.admission,
      cpuShares: Object.entries(cpu).map(
        ([name, usedMs]) => `${name} ${((usedMs / (OVERLOAD_SECONDS * 1000)) * 100).toFixed(0)} %`,
      ),
    };
  } finally {
    await Promise.all([pool.close(), lightPool.close()]);
  }
}

interface Service {
  child: Child;
  url: string;
}

/** The services' event-loop timer fires every 100 ms (libs/http-kit's metrics): its histogram counts that too. */
const LAG_RESOLUTION_MS = 100;
/** "Slower than" lines: bounds of the services' request duration buckets, in ms. */
const SLOW_MS = [25, 50, 100];
const REFUSAL_BOUND_MS = 250;
/** Bounds of the gateway's queue wait buckets, in ms. */
const WAIT_MS = [5, 25, 50, Infinity];

/** One scrape of a service: its event loop delay since the last one, and its answers so far by bucket. */
interface Scrape {
  lag: string;
  /** 200s in all, and within each of SLOW_MS. */
  ok: number;
  okWithin: number[];
  /** 503s in all, and within REFUSAL_BOUND_MS. */
  refused: number;
  refusedWithin: number;
  /** The gateway's requests to posts-service admitted after a wait, within each of WAIT_MS (the last: all). */
  waitedWithin: number[];
  /** The gateway's admission gauges and counter for posts-service, as exposed. */
  admission: string;
}

async function scrape(services: Record<string, Service>): Promise<Record<string, Scrape>> {
  const scrapes = await Promise.all(
    Object.entries(services).map(async ([name, { url }]) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const lagMs = (metric: string) =>
        Number(new RegExp(`^${metric}\\S* (\\S+)$`, 'm').exec(text)?.[1]) * 1000 - LAG_RESOLUTION_MS;
      const le = (boundMs: number) => `le="${Number.isFinite(boundMs) ? boundMs / 1000 : '+Inf'}"`;
      // The sum of a metric's samples whose labels include all of `having` (split by hand: a route's
      // `{id}` is inside a label value).
      const sum = (metric: string, ...having: string[]) => {
        let n = 0;
        for (const line of text.split('\n')) {
          if (!line.startsWith(`${metric}{`)) continue;
          const space = line.lastIndexOf(' ');
          if (having.every((label) => line.slice(0, space).includes(label)))
            n += Number(line.slice(space + 1));
        }
        return n;
      };
      const answers = (status: number, boundMs: number) =>
        sum(
          'http_server_request_duration_seconds_bucket',
          `http_response_status_code="${status}"`,
          le(boundMs),
        );
      const scraped: Scrape = {
        lag: `${name} p99 ${ms(lagMs('nodejs_eventloop_lag_p99_seconds'))} max ${ms(lagMs('nodejs_eventloop_lag_max_seconds'))} ms`,
        ok: answers(200, Infinity),
        okWithin: SLOW_MS.map((bound) => answers(200, bound)),
        refused: answers(503, Infinity),
        refusedWithin: answers(503, REFUSAL_BOUND_MS),
        waitedWithin: WAIT_MS.map((bound) =>
          sum('gateway_upstream_queue_wait_seconds_bucket', 'upstream="posts"', le(bound)),
        ),
        admission: text
          .split('\n')
          .filter((l) => l.startsWith('gateway_upstream_') && l.includes('"posts"') && !l.includes('_wait_'))
          .join('; '),
      };
      return [name, scraped] as const;
    }),
  );
  return Object.fromEntries(scrapes);
}

const share = (part: number, all: number) => `${((part / Math.max(all, 1)) * 100).toFixed(1)} %`;

/** Where the slow answers are: the share of 200s over each of SLOW_MS at the client and in each service's own measure. */
function slowAnswers(
  client: number[],
  before: Record<string, Scrape>,
  after: Record<string, Scrape>,
): string {
  const rows = [
    `client ${SLOW_MS.map((b) => share(client.filter((t) => t > b).length, client.length)).join(' / ')}`,
  ];
  for (const [name, now] of Object.entries(after)) {
    const all = now.ok - before[name]!.ok;
    rows.push(
      `${name} ${now.okWithin.map((n, i) => share(all - (n - before[name]!.okWithin[i]!), all)).join(' / ')}`,
    );
  }
  return rows.join('; ');
}

/** How long the gateway's requests admitted after a wait waited: how many, and the share within each of WAIT_MS. */
function queueWaits(before: Scrape, after: Scrape): string {
  const counts = after.waitedWithin.map((n, i) => n - before.waitedWithin[i]!);
  const all = counts.at(-1)!;
  const shares = counts.slice(0, -1).map((n) => share(n, all));
  return `${all} admitted after a wait, within ${WAIT_MS.slice(0, -1).join(' / ')} ms: ${shares.join(' / ')}`;
}

/** The gateway's 503s over REFUSAL_BOUND_MS in its own measure (the client's may include its own delays). */
function lateRefusals(before: Scrape, after: Scrape): string {
  const all = after.refused - before.refused;
  return `${share(all - (after.refusedWithin - before.refusedWithin), all)} of ${all}`;
}

function report(
  name: string,
  run: Awaited<ReturnType<typeof overload>>,
  capacity: number,
  unloaded: { p99: number },
) {
  const s = run.heavy.summary();
  const light = run.light.okShare;
  const other5xx = run.heavy.count((k) => k.startsWith('5') && k !== '503 overloaded');
  const tooMany = run.heavy.count((k) => k.startsWith('429')) + run.light.count((k) => k.startsWith('429'));
  const errors = run.heavy.count((k) => !/^\d/.test(k));
  const lateRejections = run.heavy.overloaded.filter((t) => t > QUEUE_TIMEOUT_MS + 50).length;
  const growth = (series: number[]) => (series.at(-1)! - series[1]!) / series[1]!;
  // The platform's memory: the generator's own grows with every answer it keeps.
  const services = Object.entries(run.samples).filter(([proc]) => proc !== 'generator');
  const flat = services.every(([, series]) => growth(series) <= 0.1);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(`\n=== ${name}: ${line('3 × capacity', run.heavy)}`);
  console.log(`answers: ${run.heavy.kindsLine()}`);
  console.log(`light client: ${run.light.kindsLine()}`);
  console.log(`admission (posts) at the end: ${run.metrics}`);
  console.log(`queue (posts): ${run.waits}`);
  console.log(`event loop delay: ${run.lags.join('; ')}`);
  console.log(`200s slower than ${SLOW_MS.join(' / ')} ms: ${run.slow}`);
  console.log(`503s slower than ${REFUSAL_BOUND_MS} ms in the gateway's own measure: ${run.lateRefusals}`);
  console.log(`CPU during the overload (100 % = a core): ${run.cpuShares.join(', ')}`);
  for (const [proc, series] of Object.entries(run.samples))
    console.log(`  RSS ${proc.padEnd(9)} ${series.map((v) => v.toFixed(0)).join(' → ')} MiB`);
  const rows: [string, string, boolean][] = [
    [
      'goodput ≥ 80 % of capacity',
      `${s.goodput.toFixed(0)}/s = ${((s.goodput / capacity) * 100).toFixed(0)} %`,
      s.goodput >= 0.8 * capacity,
    ],
    [
      'admitted p99 ≤ 5 × unloaded p99',
      `${ms(s.p99)} ms = ${(s.p99 / unloaded.p99).toFixed(1)} × (p50 ${ms(s.p50)})`,
      s.p99 <= 5 * unloaded.p99,
    ],
    [
      `every 503 overloaded ≤ ${QUEUE_TIMEOUT_MS + 50} ms`,
      `p99 ${ms(s.rejectedP99)} ms, max ${ms(s.rejectedMax)} ms, ${lateRejections} of ${run.heavy.overloaded.length} later`,
      lateRejections === 0,
    ],
    [
      'no other 5xx, no 429, no socket error',
      `${other5xx} other 5xx, ${tooMany} × 429, ${errors} errors`,
      other5xx + tooMany + errors === 0,
    ],
    [
      'memory flat (≤ +10 % from 5 s to the end)',
      services.map(([proc, series]) => `${proc} ${(growth(series) * 100).toFixed(0)} %`).join(', '),
      flat,
    ],
    ['light client ≥ 99 % 2xx', `${(light * 100).toFixed(1)} % of ${run.light.sent}`, light >= 0.99],
  ];
  for (const [target, figure, ok] of rows)
    console.log(`  ${target.padEnd(44)} ${figure.padEnd(48)} ${verdict(ok)}`);
}

async function main(): Promise<void> {
  const pinning = os.cpus().length >= 2;
  if (pinning)
    execFileSync('taskset', ['-a', '-p', '-c', GENERATOR_CPU, String(process.pid)], { stdio: 'ignore' });
  await clearBenchPlace(place, SERVICES);
  build(root);
  const token = randomBytes(32).toString('base64url');
  const { users, posts, gateways } = await startStack(token);
  const gatewayUrl = gateways[0]!.url;
  const first = await benchAccount(users.url, posts.url, gatewayUrl, token, POSTS);
  const keys = [first.key];
  while (keys.length < ACCOUNTS) keys.push((await enterpriseAccount(users.url, gatewayUrl, token)).key);
  const lightKey = (await enterpriseAccount(users.url, gatewayUrl, token)).key;
  const light = first.ids.map((id) => ({ path: `/api/v1/posts/${id}`, key: lightKey }));
  const pick = mix(keys, first.ids);

  console.log(`\n${commandLine('bench:overload')}`);
  console.log(
    `node ${process.version}, ${os.cpus().length} cores; ` +
      (pinning
        ? `users, posts and gateway pinned to CPU ${STACK_CPU}, this generator to CPU ${GENERATOR_CPU}`
        : 'one core: nothing pinned') +
      `; PostgreSQL, Redis, RabbitMQ unpinned; QUEUE_TIMEOUT_MS ${QUEUE_TIMEOUT_MS}; ` +
      `${ACCOUNTS} enterprise accounts + 1 light; load average at start ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const { capacity, unloaded, bound } = await findCapacity(gatewayUrl, pick);
  console.log(
    `capacity ${capacity}/s (≥ 99 % 2xx, p99 ≤ ${ms(bound)} ms = 5 × unloaded p99); unloaded p50 ${ms(unloaded.p50)} ms, p99 ${ms(unloaded.p99)} ms`,
  );
  for (const gateway of gateways) {
    if (gateway !== gateways[0]) await warmUp(gateway.url, pick);
    await sleep(2000);
    const run = await overload(gateway, 3 * capacity, { pick, light, services: { users, posts } });
    report(gateway.child.name, run, capacity, unloaded);
  }
}

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await children.stopAll();
    await clearBenchPlace(place, SERVICES);
    if (process.exitCode) console.error(`logs kept in ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  })();
  return cleaning;
}

runBench(main, cleanup);
