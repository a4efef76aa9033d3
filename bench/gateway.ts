/**
 * `GET /api/v1/posts/{id}` three ways, same run, same load: straight to posts-service, through nginx
 * as a plain reverse proxy, and through the gateway (`npm run bench:gateway`, loopback only, bounded).
 *
 * users-service, posts-service and the gateway run as separate processes (like `npm start`), nginx
 * (Debian package) runs in the foreground from a temp dir, and wrk (Debian package, C, one thread)
 * generates the load, so no server shares an event loop with the load generator. Direct and nginx
 * requests carry identity headers signed here, exactly as the gateway would sign them; gateway
 * requests carry an API key of an enterprise account with limits far above the run.
 *
 * Everything lives apart from `npm start` and the tests: database `community_bench_gw` (dropped at
 * start and end), exchange `bench.gw.events`, Redis prefix `bench:gw:`, free ports. BENCH_NAMESPACE
 * (gw) names all three, so two benches can run side by side from two clones (`gwp`: database
 * `community_bench_gwp`, exchange `bench.gwp.events`, prefix `bench:gwp:`).
 *
 * Env: BENCH_CONNECTIONS (32,1: the concurrency levels, the first saturates the machine, c=1 shows
 *      the latency each hop adds without queueing), BENCH_DURATION (10 s measured), BENCH_WARMUP
 *      (3 s, before each measured run), BENCH_ROUNDS (2: direct, nginx, gateway, then gateway,
 *      nginx, direct), BENCH_POSTS (100: posts the requests rotate over; every read of a post is
 *      also an UPDATE of its view count, and a single hot row would serialise on its row lock and
 *      pile up dead row versions, slowing later runs), BENCH_THREADS (1 wrk thread),
 *      BENCH_TARGETS (direct,nginx,node,floor,gateway,gateway304; node is bench/node-proxy.mjs, a bare
 *      node:http proxy: the floor for any Node proxy on this machine; undici (not in the default
 *      list) is bench/undici-proxy.mjs, a bare proxy on undici's pool, the client the gateway uses;
 *      bare (not in the default list) is bench/bare-read.mjs, node:http and postgres.js answering the
 *      read with its one query and nothing else: the floor for any Node service of this read here;
 *      floor is bench/floor-proxy.mjs,
 *      that proxy plus only the per-request work of this API's contract (key hash, signed identity,
 *      limit and cache headers): the floor for a Node gateway of this API; gateway304 sends each post's
 *      current ETag in If-None-Match, so every answer is a free 304, DESIGN.md §10), BENCH_LOG_LEVEL (warn, for all three services),
 *      BENCH_RUN (built: every service runs as its image does, `node --enable-source-maps
 *      dist/main.js` after `npm run build` in each checkout; source: from TypeScript through tsx,
 *      whose transform names every closure it creates at run time),
 *      BENCH_PROFILE_DIR (unset: when set, the gateway runs with --cpu-prof into that directory, the
 *      bare Node proxy into its `node/` subdirectory, the floor into `floor/`),
 *      BENCH_GATEWAY_NODE_ARGS (extra node flags for the gateway, e.g. --perf-basic-prof; it runs
 *      with docker-compose.yml's and the Kubernetes base's NODE_OPTIONS, --max-semi-space-size=32, as
 *      does the bare Node proxy, so both are measured as a gateway is deployed),
 *      BENCH_BASELINE (unset: a git revision whose gateway runs beside this one as the target
 *      `baseline`, from a temporary worktree with its own npm ci, same key and load: before and after
 *      in one run),
 *      BENCH_POSTS_NODE_ARGS (the same for posts-service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`),
 *      BENCH_PROXY_NODE_ARGS (the same for the bare Node proxy and the floor, e.g. --perf-basic-prof
 *      to profile them beside the gateway with perf),
 *      BENCH_KEEP_LOGS (unset: when 1, every process's output is kept in the run's temporary
 *      directory, named at the end: e.g. V8's trace of each garbage collection, with
 *      `--trace-gc-nvp` in BENCH_GATEWAY_NODE_ARGS or BENCH_POSTS_NODE_ARGS),
 *      BENCH_TRACING (unset: when 1, every service traces every request to a local OTLP sink; the
 *      target `untraced` is then a second gateway of this checkout with tracing off, the stack behind
 *      it traced as for `gateway`: the gateway's own tracing is the only difference between the two),
 *      BENCH_COMPARE_ROOT (unset: when set to another checkout with its own `npm ci`, a second
 *      posts-service runs from there, against the same database, and the target `compare` goes
 *      straight to it like `direct`: before and after of a posts-service change in one run, each
 *      measured run alternating with the other; its CPU is the `compare` column;
 *      BENCH_COMPARE_NODE_ARGS, when set, are its node flags instead of BENCH_POSTS_NODE_ARGS: with
 *      BENCH_COMPARE_ROOT=. the same posts-service under other flags),
 *      BENCH_TIMELINE (0: when set to N, after the wrk runs, N seconds of one request at a time
 *      straight to posts-service (and to `compare`) and through the gateway, each timed, and when
 *      the answers over 10 ms came: bench/timeline.ts),
 *      BENCH_RATE (unset: when set, the connections are paced to about this many requests a second
 *      in all — each waits `connections / rate` after every answer — so that CPU a request
 *      compares targets at the same load; flat out, a target that answers fewer requests a second
 *      also gets fewer of them per turn of its event loop, and pays more a request for that alone),
 *      BENCH_GW_DATABASE_URL, BENCH_REDIS_URL, BENCH_AMQP_URL.
 *
 * Besides req/s and latency it reports CPU per request of every process (from /proc), which on a
 * shared 2-core machine is steadier than throughput and says where the time goes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Sql } from '@community/db';
import { freePort } from '@community/test-harness';
import {
  build,
  checkoutAt,
  DEPLOYED_NODE_ARGS,
  BenchChildren,
  commandLine,
  removeCheckout,
  runBench,
  stopChild,
  sinkSpans,
  traceEverything,
  UNTRACED_ENV,
  waitHttp,
  type Child,
} from './processes';
import {
  benchPlace,
  clearBenchAmqp,
  clearBenchPlace,
  dataServiceEnv,
  clearRedisPrefix,
  dropBenchDatabase,
  flagsEnv,
  intEnv,
} from './infra';
import { cpuSnapshot, cpuUsedMs } from './cpu';
import { benchAccount, signedRead } from './seed-posts';
import { record, slowAnswers } from './timeline';

const root = path.resolve(__dirname, '..');
const place = benchPlace('gw', 'BENCH_GW_DATABASE_URL');
const {
  databaseUrl: DATABASE_URL,
  databaseName: DATABASE_NAME,
  redisUrl: REDIS_URL,
  redisPrefix: REDIS_PREFIX,
  amqpUrl: AMQP_URL,
  exchange: EXCHANGE,
} = place;
/** Whose queues the bench's exchange gets. */
const SERVICES = ['posts-service', 'users-service'];
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '32,1').split(',').map((c) => {
  const n = Number(c.trim());
  if (!Number.isInteger(n) || n < 1)
    throw new Error('BENCH_CONNECTIONS must be positive integers, comma-separated');
  return n;
});
const DURATION = intEnv('BENCH_DURATION', 10);
const WARMUP = intEnv('BENCH_WARMUP', 3);
const ROUNDS = intEnv('BENCH_ROUNDS', 2);
const POSTS = intEnv('BENCH_POSTS', 100);
const THREADS = intEnv('BENCH_THREADS', 1);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
const GATEWAY_NODE_ARGS = flagsEnv('BENCH_GATEWAY_NODE_ARGS');
const POSTS_NODE_ARGS = flagsEnv('BENCH_POSTS_NODE_ARGS');
const COMPARE_NODE_ARGS =
  process.env.BENCH_COMPARE_NODE_ARGS === undefined ? POSTS_NODE_ARGS : flagsEnv('BENCH_COMPARE_NODE_ARGS');
const PROXY_NODE_ARGS = flagsEnv('BENCH_PROXY_NODE_ARGS');
const KEEP_LOGS = process.env.BENCH_KEEP_LOGS === '1';
const RATE = process.env.BENCH_RATE ? intEnv('BENCH_RATE', 0) : 0;
const TIMELINE = process.env.BENCH_TIMELINE ? intEnv('BENCH_TIMELINE', 0) : 0;
const COMPARE_ROOT = process.env.BENCH_COMPARE_ROOT
  ? path.resolve(process.env.BENCH_COMPARE_ROOT)
  : undefined;
const TARGETS = (process.env.BENCH_TARGETS ?? 'direct,nginx,node,floor,gateway,gateway304')
  .split(',')
  .map((t) => t.trim())
  .filter((t) => t !== 'baseline')
  // Once, whether or not BENCH_TARGETS names it too.
  .concat(process.env.BENCH_BASELINE ? ['baseline'] : []);

const TARGET_ADDED_P50_MS = 2;

/**
 * Issue 22's targets: the gateway's CPU per request against the bare Node proxy's, and its
 * throughput against nginx's, in one run; laxer at one connection, where nothing amortises.
 */
const targetsAt = (connections: number) =>
  connections === 1 ? { cpu: 2, throughput: 0.7 } : { cpu: 1.5, throughput: 0.85 };

const BASELINE = process.env.BENCH_BASELINE;

const KNOWN_TARGETS = [
  'direct',
  'compare',
  'bare',
  'nginx',
  'node',
  'undici',
  'floor',
  'gateway',
  'gateway304',
  'baseline',
  'untraced',
] as const;
type Target = (typeof KNOWN_TARGETS)[number];

// ---------------------------------------------------------------------------------------------
// Child processes

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gw-'));
// nginx's worker drops to `nobody` when the master runs as root: it must be able to enter the dir.
fs.chmodSync(workDir, 0o755);
const children = new BenchChildren({ cwd: root, workDir, logLevel: LOG_LEVEL });

// ---------------------------------------------------------------------------------------------
// Load generation with wrk

interface Plan {
  target: Target;
  url: string;
  /** One request per post the run rotates over: path and headers. */
  requests: { path: string; headers: Record<string, string> }[];
}

interface WrkResult {
  requests: number;
  durationUs: number;
  bytes: number;
  non2xx: number;
  firstBadStatus: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
  maxUs: number;
  meanUs: number;
  /** Answers that took over 10 ms, and all answers, from wrk's latency histogram: the tail's weight. */
  over10ms: number;
  timed: number;
}

const lua = (value: string) => JSON.stringify(value); // ASCII paths and header values only

/**
 * BENCH_RATE: wrk's `delay`, each connection's wait after an answer (ms), so that all of them together
 * send about RATE requests a second.
 */
function paced(connections: number): string {
  if (!RATE) return '';
  return `function delay() return ${Math.max(1, Math.round((connections * 1000) / RATE))} end\n`;
}

function wrkScript(plan: Plan, connections: number): string {
  const requests = plan.requests
    .map(({ path: p, headers }) => {
      const table = Object.entries(headers)
        .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
        .join(', ');
      return `    wrk.format("GET", ${lua(p)}, { ${table} }),`;
    })
    .join('\n');
  return `-- generated by bench/gateway.ts for target ${plan.target}
local threads = {}
function setup(thread) table.insert(threads, thread) end

local reqs, i = {}, 0
-- "non2xx" counts answers other than the expected one (a conditional plan expects 304).
local expected = ${plan.requests.some((r) => r.headers['if-none-match']) ? 304 : 200}
non2xx, bad = 0, 0
function init(args)
  reqs = {
${requests}
  }
end
function request()
  i = i % #reqs + 1
  return reqs[i]
end
${paced(connections)}function response(status, headers, body)
  if status ~= expected then
    non2xx = non2xx + 1
    if bad == 0 then bad = status end
  end
end

function done(summary, latency, requests)
  local n, first = 0, 0
  for _, t in ipairs(threads) do
    n = n + t:get("non2xx")
    if first == 0 then first = t:get("bad") end
  end
  -- latency(j): the j-th distinct latency (µs) and how many answers took it.
  local over, timed = 0, 0
  for j = 1, #latency do
    local value, count = latency(j)
    timed = timed + count
    if value > 10000 then over = over + count end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"non2xx":%d,"firstBadStatus":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"p50Us":%d,"p90Us":%d,"p99Us":%d,"p999Us":%d,"maxUs":%d,"meanUs":%.1f,"over10ms":%d,"timed":%d}\\n',
    summary.requests, summary.duration, summary.bytes, n, first,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean, over, timed))
end
`;
}

function wrkArgs(plan: Plan, connections: number, seconds: number, script: string): string[] {
  return [
    `-t${Math.min(THREADS, connections)}`,
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    plan.url,
  ];
}

function runWrk(
  plan: Plan,
  connections: number,
  seconds: number,
  label: string,
): WrkResult & { cpuMs: number } {
  const script = path.join(workDir, `${plan.target}-c${connections}-${label}.lua`);
  fs.writeFileSync(script, wrkScript(plan, connections));
  // bash's `times` prints the CPU its children (wrk) used: user and system, on the second line.
  const out = execFileSync(
    'bash',
    ['-c', 'wrk "$@" && times', 'wrk', ...wrkArgs(plan, connections, seconds, script)],
    {
      encoding: 'utf8',
      timeout: (seconds + 30) * 1000,
    },
  );
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const times = out.trimEnd().split('\n').at(-1)!.split(' ').map(bashTime);
  return {
    ...(JSON.parse(line.slice('BENCH_JSON '.length)) as WrkResult),
    cpuMs: (times[0] ?? 0) + (times[1] ?? 0),
  };
}

/** `1m2.345s` → milliseconds. */
function bashTime(value: string): number {
  const match = /^(\d+)m([\d.]+)s$/.exec(value.trim());
  return match ? (Number(match[1]) * 60 + Number(match[2])) * 1000 : 0;
}

// ---------------------------------------------------------------------------------------------

function checkTools(): { nginx: string; wrk: string } {
  const versionOf = (command: string, args: string[]) => {
    // `nginx -v` prints to stderr; `wrk -v` exits 1 after printing its version.
    const res = spawnSync(command, args, { encoding: 'utf8' });
    if (res.error) return undefined;
    return `${res.stdout}${res.stderr}`.trim();
  };
  const nginx = versionOf('nginx', ['-v']);
  const wrk = versionOf('wrk', ['-v']);
  const missing = [!nginx && 'nginx', !wrk && 'wrk'].filter(Boolean);
  if (missing.length) {
    throw new Error(`${missing.join(' and ')} not found: apt-get update && apt-get install -y nginx wrk`);
  }
  return { nginx: nginx!.split('\n')[0]!, wrk: wrk!.split('\n')[0]!.replace(/ \[.*$/, '') };
}

function plans(
  targets: Record<Target, string>,
  data: { userId: number; key: string; ids: number[] },
  token: string,
): Record<Target, Plan> {
  const paths = data.ids.map((id) => `/api/v1/posts/${id}`);
  // What the gateway signs for this key: the account, its role and the key's scopes.
  const signed = () => paths.map((p) => ({ path: p, headers: signedRead(token, data.userId, p) }));
  // Each plan its own headers: currentTags adds If-None-Match to gateway304's.
  const withKey = () => paths.map((p) => ({ path: p, headers: { authorization: `Bearer ${data.key}` } }));
  return {
    direct: { target: 'direct', url: targets.direct, requests: signed() },
    compare: { target: 'compare', url: targets.compare, requests: signed() },
    bare: { target: 'bare', url: targets.bare, requests: signed() },
    nginx: { target: 'nginx', url: targets.nginx, requests: signed() },
    node: { target: 'node', url: targets.node, requests: signed() },
    undici: { target: 'undici', url: targets.undici, requests: signed() },
    floor: { target: 'floor', url: targets.floor, requests: withKey() },
    gateway: { target: 'gateway', url: targets.gateway, requests: withKey() },
    baseline: { target: 'baseline', url: targets.baseline, requests: withKey() },
    untraced: { target: 'untraced', url: targets.untraced, requests: withKey() },
    // Its If-None-Match is filled in by currentTags just before the run: every read answered 200
    // counts a view and so changes the post's tag.
    gateway304: { target: 'gateway304', url: targets.gateway, requests: withKey() },
  };
}

/**
 * Gives each request of a conditional plan the ETag its post has now. The read that fetches it counts
 * a view, and its answer includes that view (DESIGN.md §10): its tag is the current one.
 */
async function currentTags(plan: Plan): Promise<void> {
  for (const request of plan.requests) {
    delete request.headers['if-none-match'];
    const res = await getOnce(plan.url + request.path, request.headers);
    if (res.status !== 200 || !res.etag)
      throw new Error(`${request.path} answered ${res.status} without an ETag`);
    request.headers['if-none-match'] = res.etag;
  }
}

/**
 * One GET on a fresh connection, never a pooled one: a fetch reusing a connection left idle across
 * runs (~65 s, the services' keep-alive timeout) once failed with "fetch failed" here.
 */
function getOnce(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; etag?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, etag: res.headers.etag }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** Every request of the plan answers 200 with its post (a conditional plan: 304) before it is measured. */
async function verify(plan: Plan): Promise<void> {
  for (const { path: p, headers } of plan.requests) {
    const res = await getOnce(plan.url + p, headers);
    if (headers['if-none-match']) {
      if (res.status !== 304 || res.body !== '')
        throw new Error(`${plan.target} ${p} answered ${res.status}, not 304: ${res.body.slice(0, 300)}`);
      continue;
    }
    let id: unknown;
    try {
      id = (JSON.parse(res.body) as { data?: { id?: number } }).data?.id;
    } catch {
      id = undefined;
    }
    if (res.status !== 200 || `/api/v1/posts/${id}` !== p) {
      throw new Error(`${plan.target} ${p} answered ${res.status}: ${res.body.slice(0, 300)}`);
    }
  }
}

interface Row {
  connections: number;
  round: number;
  target: Target;
  rps: number;
  result: WrkResult;
  /** CPU milliseconds each process group used during the measured run. */
  cpuMs: Record<string, number>;
  loadAvg: number;
  /** BENCH_TRACING: the gateway spans the sink received during the measured run. */
  gatewaySpans?: number;
}

const ms = (us: number) => (us / 1000).toFixed(2);

const CPU_GROUPS = [
  'wrk',
  'nginx',
  'node',
  'undici',
  'floor',
  'gateway',
  'baseline',
  'untraced',
  'redis',
  'posts',
  'compare',
  'bare',
  'users',
  'postgres',
] as const;

function printTable(rows: Row[]): void {
  const table = (header: string[], widths: number[], lines: string[][]) => {
    const fmt = (cells: string[]) =>
      cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' ');
    console.log(fmt(header));
    for (const cells of lines) console.log(fmt(cells));
  };
  table(
    [
      'round',
      'target',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'p99.9 ms',
      'max ms',
      '>10 ms',
      'requests',
      'non-2xx',
      'errors',
      'load1',
    ],
    [5, 8, 7, 7, 7, 7, 8, 8, 7, 9, 8, 7, 6],
    rows.map(({ round, target, rps, result: r, loadAvg }) => [
      String(round),
      target,
      rps.toFixed(0),
      ms(r.p50Us),
      ms(r.p90Us),
      ms(r.p99Us),
      ms(r.p999Us),
      ms(r.maxUs),
      `${((r.over10ms / Math.max(1, r.timed)) * 100).toFixed(2)}%`,
      String(r.requests),
      String(r.non2xx),
      String(r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout),
      loadAvg.toFixed(2),
    ]),
  );
  console.log(
    '\nCPU per request in microseconds (user + system from /proc; postgres: backends of the bench database; redis: the shared server):',
  );
  table(
    ['round', 'target', ...CPU_GROUPS, 'total'],
    [5, 8, ...CPU_GROUPS.map(() => 8), 8],
    rows.map(({ round, target, result, cpuMs }) => {
      const per = (cpu: number) => ((cpu * 1000) / result.requests).toFixed(0);
      const total = CPU_GROUPS.reduce((sum, g) => sum + (cpuMs[g] ?? 0), 0);
      return [String(round), target, ...CPU_GROUPS.map((g) => per(cpuMs[g] ?? 0)), per(total)];
    }),
  );
}

function summarise(rows: Row[], target: Target) {
  const mine = rows.filter((r) => r.target === target);
  if (!mine.length) return undefined;
  const mean = (f: (r: Row) => number) => mine.reduce((sum, r) => sum + f(r), 0) / mine.length;
  const requests = mine.reduce((sum, r) => sum + r.result.requests, 0);
  const cpuUs = (group: string) =>
    (mine.reduce((sum, r) => sum + (r.cpuMs[group] ?? 0), 0) * 1000) / requests;
  return {
    rps: mean((r) => r.rps),
    p50Us: mean((r) => r.result.p50Us),
    p99Us: mean((r) => r.result.p99Us),
    p999Us: mean((r) => r.result.p999Us),
    cpuUs: Object.fromEntries(CPU_GROUPS.map((g) => [g, cpuUs(g)])) as Record<
      (typeof CPU_GROUPS)[number],
      number
    >,
  };
}

function report(rows: Row[], targets: Target[], connections: number): void {
  console.log('\nMean per target:');
  const means: Partial<Record<Target, ReturnType<typeof summarise>>> = {};
  for (const t of targets) {
    const m = summarise(rows, t)!;
    means[t] = m;
    console.log(
      `${t.padEnd(8)} ${m.rps.toFixed(0).padStart(6)} req/s   p50 ${ms(m.p50Us).padStart(6)} ms   ` +
        `p99 ${ms(m.p99Us).padStart(6)} ms (${(m.p99Us / m.p50Us).toFixed(1)}× p50)   ` +
        `p99.9 ${ms(m.p999Us).padStart(6)} ms (${(m.p999Us / m.p50Us).toFixed(1)}×)   CPU/request ${CPU_GROUPS.map((g) => `${g} ${m.cpuUs[g].toFixed(0)}`).join(', ')} µs`,
    );
  }
  const { direct, nginx: viaNginx, gateway: viaGateway, gateway304: notModified, compare } = means;
  if (direct && compare) {
    console.log(
      `\nposts-service here vs BENCH_COMPARE_ROOT's: ${direct.cpuUs.posts.toFixed(0)} vs ` +
        `${compare.cpuUs.compare.toFixed(0)} µs/request, postgres ${direct.cpuUs.postgres.toFixed(0)} vs ` +
        `${compare.cpuUs.postgres.toFixed(0)} µs, ${direct.rps.toFixed(0)} vs ${compare.rps.toFixed(0)} req/s`,
    );
  }
  if (viaGateway && notModified) {
    const total = (m: typeof viaGateway) => Object.values(m.cpuUs).reduce((sum, us) => sum + us, 0);
    console.log(
      `\n304 vs 200 through the gateway: gateway ${notModified.cpuUs.gateway.toFixed(0)} vs ` +
        `${viaGateway.cpuUs.gateway.toFixed(0)} µs/request, Redis ${notModified.cpuUs.redis.toFixed(0)} vs ` +
        `${viaGateway.cpuUs.redis.toFixed(0)} µs (the refund), posts-service ${notModified.cpuUs.posts.toFixed(0)} vs ` +
        `${viaGateway.cpuUs.posts.toFixed(0)} µs, all processes ${total(notModified).toFixed(0)} vs ${total(viaGateway).toFixed(0)} µs`,
    );
  }
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const target = targetsAt(connections);
  if (viaGateway && (means.node || viaNginx)) console.log('\nAgainst the targets (means over rounds):');
  if (viaGateway && means.node) {
    const cpu = viaGateway.cpuUs.gateway / means.node.cpuUs.node;
    console.log(
      `  gateway / bare Node proxy CPU per request: ${cpu.toFixed(2)}x (target <= ${target.cpu}x): ` +
        verdict(cpu <= target.cpu),
    );
  }
  if (means.floor && means.node) {
    const { floor, node } = means;
    console.log(
      `  for reference: contract floor / bare Node proxy CPU per request ${(floor.cpuUs.floor / node.cpuUs.node).toFixed(2)}x` +
        (viaGateway
          ? `, gateway / contract floor ${(viaGateway.cpuUs.gateway / floor.cpuUs.floor).toFixed(2)}x`
          : '') +
        (viaNginx ? `, contract floor / nginx throughput ${(floor.rps / viaNginx.rps).toFixed(2)}x` : ''),
    );
  }
  if (means.undici) {
    const { undici } = means;
    console.log(
      `  for reference: bare undici proxy CPU ${undici.cpuUs.undici.toFixed(0)} µs/request` +
        (means.node
          ? `, ${(undici.cpuUs.undici / means.node.cpuUs.node).toFixed(2)}x the bare Node proxy`
          : '') +
        (viaGateway
          ? `, gateway / bare undici proxy ${(viaGateway.cpuUs.gateway / undici.cpuUs.undici).toFixed(2)}x`
          : '') +
        (viaNginx ? `, bare undici proxy / nginx throughput ${(undici.rps / viaNginx.rps).toFixed(2)}x` : ''),
    );
  }
  if (means.baseline && viaGateway) {
    const { baseline } = means;
    console.log(
      `  gateway vs baseline (${BASELINE}): CPU per request ${viaGateway.cpuUs.gateway.toFixed(0)} vs ` +
        `${baseline.cpuUs.baseline.toFixed(0)} µs, throughput ${viaGateway.rps.toFixed(0)} vs ${baseline.rps.toFixed(0)} req/s`,
    );
  }
  if (means.untraced && viaGateway) tracingCost(rows);
  if (viaGateway && viaNginx) {
    const ratio = viaGateway.rps / viaNginx.rps;
    console.log(
      `  gateway / nginx throughput: ${ratio.toFixed(2)}x (target >= ${target.throughput}x): ` +
        verdict(ratio >= target.throughput),
    );
  }
  if (!direct || !viaNginx || !viaGateway) return;
  const added = (viaGateway.p50Us - direct.p50Us) / 1000;
  console.log(
    `  gateway p50 - direct p50:   ${added.toFixed(2)} ms (target <= ${TARGET_ADDED_P50_MS} ms): ` +
      verdict(added <= TARGET_ADDED_P50_MS),
  );
  console.log(
    `  for reference: nginx / direct throughput ${(viaNginx.rps / direct.rps).toFixed(2)}x, ` +
      `nginx p50 - direct p50 ${((viaNginx.p50Us - direct.p50Us) / 1000).toFixed(2)} ms, ` +
      `gateway / direct throughput ${(viaGateway.rps / direct.rps).toFixed(2)}x`,
  );
  if (means.node) {
    console.log(
      `  bare Node proxy / nginx throughput ${(means.node.rps / viaNginx.rps).toFixed(2)}x, ` +
        `gateway / bare Node proxy ${(viaGateway.rps / means.node.rps).toFixed(2)}x, ` +
        `bare Node proxy CPU ${means.node.cpuUs.node.toFixed(0)} µs/request`,
    );
  }
  const gatewayExtra = viaGateway.cpuUs.gateway + viaGateway.cpuUs.redis - direct.cpuUs.redis;
  console.log(
    `  CPU the proxy spends per request: nginx ${viaNginx.cpuUs.nginx.toFixed(0)} µs, gateway ` +
      `${viaGateway.cpuUs.gateway.toFixed(0)} µs + Redis ${(viaGateway.cpuUs.redis - direct.cpuUs.redis).toFixed(0)} µs ` +
      `(${(gatewayExtra / viaNginx.cpuUs.nginx).toFixed(1)}x nginx)`,
  );
}

/**
 * BENCH_TRACING with the target `untraced`: what the gateway's own tracing costs it, round by round
 * (each round runs both, in turn, under the same load and the same traced services), and the
 * gateway spans the sink received a request: two while none is dropped (within a batch, which the
 * SDK may still hold when the run ends).
 */
function tracingCost(rows: Row[]): void {
  const cpu = (r: Row, group: string) => ((r.cpuMs[group] ?? 0) * 1000) / r.result.requests;
  const rounds = [...new Set(rows.map((r) => r.round))];
  const growth = rounds.map((round) => {
    const traced = rows.find((r) => r.round === round && r.target === 'gateway')!;
    const untraced = rows.find((r) => r.round === round && r.target === 'untraced')!;
    return {
      round,
      traced: cpu(traced, 'gateway'),
      untraced: cpu(untraced, 'untraced'),
      spans: (traced.gatewaySpans ?? 0) / traced.result.requests,
    };
  });
  const pct = (traced: number, untraced: number) =>
    `${(((traced - untraced) / untraced) * 100).toFixed(1)} %`;
  console.log(`  the gateway's own tracing (DESIGN.md §15: at most +15 % CPU per request):`);
  for (const g of growth)
    console.log(
      `    round ${g.round}: traced ${g.traced.toFixed(1)} vs untraced ${g.untraced.toFixed(1)} µs ` +
        `(${pct(g.traced, g.untraced)}), ${g.spans.toFixed(3)} gateway spans a request`,
    );
  const traced = growth.reduce((sum, g) => sum + g.traced, 0) / growth.length;
  const untraced = growth.reduce((sum, g) => sum + g.untraced, 0) / growth.length;
  console.log(
    `    mean of rounds: ${traced.toFixed(1)} vs ${untraced.toFixed(1)} µs (${pct(traced, untraced)})`,
  );
}

/**
 * One of the bench's own Node proxies (`bench/<script>`) on `port`, run as the gateway is deployed,
 * profiled into BENCH_PROFILE_DIR/<name> when set; answering once it is.
 */
async function startProxy(name: string, script: string, port: number, args: string[]) {
  const child = children.start(
    name,
    process.execPath,
    [
      ...DEPLOYED_NODE_ARGS,
      ...PROXY_NODE_ARGS,
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(PROFILE_DIR, name)}`] : []),
      path.join(__dirname, script),
      String(port),
      ...args,
    ],
    { PATH: process.env.PATH },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHttp(child, `${url}/healthz`);
  return { child, url };
}

async function main(): Promise<void> {
  const tools = checkTools();
  const targets = TARGETS.filter((t): t is Target => (KNOWN_TARGETS as readonly string[]).includes(t));
  if (!targets.length) throw new Error(`BENCH_TARGETS names none of ${KNOWN_TARGETS.join(', ')}`);

  await dropBenchDatabase(DATABASE_URL);
  await clearRedisPrefix(REDIS_URL, REDIS_PREFIX);
  await clearBenchAmqp(AMQP_URL, EXCHANGE, SERVICES);

  const token = randomBytes(32).toString('base64url');
  const [
    usersPort,
    postsPort,
    gatewayPort,
    nginxPort,
    nodePort,
    undiciPort,
    floorPort,
    baselinePort,
    comparePort,
    untracedPort,
    barePort,
  ] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const common = dataServiceEnv(place, token);
  const sinkUrl = process.env.BENCH_TRACING === '1' ? await traceEverything(children, root) : undefined;
  if (targets.includes('untraced') && !sinkUrl) throw new Error('the target untraced needs BENCH_TRACING=1');
  build(root);
  if (COMPARE_ROOT) build(COMPARE_ROOT);
  const users = children.service('users', 'users-service', {
    ...common,
    USERS_SERVICE_PORT: String(usersPort),
  });
  const posts = children.service(
    'posts',
    'posts-service',
    { ...common, POSTS_SERVICE_PORT: String(postsPort) },
    POSTS_NODE_ARGS,
  );
  const usersUrl = `http://127.0.0.1:${usersPort}`;
  const postsUrl = `http://127.0.0.1:${postsPort}`;
  // Sequentially: both migrate the same database on first start.
  await waitHttp(users, `${usersUrl}/readyz`);
  await waitHttp(posts, `${postsUrl}/readyz`);
  if (targets.includes('compare') && !COMPARE_ROOT)
    throw new Error('the target compare needs BENCH_COMPARE_ROOT');
  // The other checkout's posts-service, on the database this one has migrated already.
  const compare = COMPARE_ROOT
    ? children.service(
        'compare',
        'posts-service',
        { ...common, POSTS_SERVICE_PORT: String(comparePort) },
        COMPARE_NODE_ARGS,
        COMPARE_ROOT,
      )
    : undefined;
  const compareUrl = `http://127.0.0.1:${comparePort}`;
  if (compare) await waitHttp(compare, `${compareUrl}/readyz`);

  if (PROFILE_DIR) fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const gatewayEnv = (port: number) => ({
    INTERNAL_TOKEN: token,
    AMQP_URL,
    AMQP_EXCHANGE: EXCHANGE,
    REDIS_URL,
    REDIS_PREFIX,
    GATEWAY_PORT: String(port),
    USERS_SERVICE_URL: usersUrl,
    POSTS_SERVICE_URL: postsUrl,
    WEBHOOK_SERVICE_URL: 'http://127.0.0.1:9',
    SHUTDOWN_GRACE_MS: '1000',
  });
  const gateway = children.service('gateway', 'gateway', gatewayEnv(gatewayPort), [
    ...DEPLOYED_NODE_ARGS,
    ...GATEWAY_NODE_ARGS,
    ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
  ]);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitHttp(gateway, `${gatewayUrl}/readyz`);
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  let baseline: Child | undefined;
  if (BASELINE) {
    const tree = (baselineDir = checkoutAt(root, BASELINE));
    baseline = children.service(
      'baseline',
      path.join(tree, 'gateway'),
      gatewayEnv(baselinePort),
      [...DEPLOYED_NODE_ARGS, ...GATEWAY_NODE_ARGS],
      tree,
    );
    await waitHttp(baseline, `${baselineUrl}/readyz`);
  }
  // This checkout's gateway again, the only untraced process of the stack.
  const untracedUrl = `http://127.0.0.1:${untracedPort}`;
  const untraced = targets.includes('untraced')
    ? children.service('untraced', 'gateway', { ...gatewayEnv(untracedPort), ...UNTRACED_ENV }, [
        ...DEPLOYED_NODE_ARGS,
        ...GATEWAY_NODE_ARGS,
      ])
    : undefined;
  if (untraced) await waitHttp(untraced, `${untracedUrl}/readyz`);

  const conf = fs
    .readFileSync(path.join(__dirname, 'nginx', 'nginx.conf.template'), 'utf8')
    .replaceAll('{{DIR}}', workDir)
    .replaceAll('{{PORT}}', String(nginxPort))
    .replaceAll('{{UPSTREAM_PORT}}', String(postsPort));
  fs.writeFileSync(path.join(workDir, 'nginx.conf'), conf);
  const nginx = children.start(
    'nginx',
    'nginx',
    [
      '-p',
      `${workDir}/`,
      '-c',
      path.join(workDir, 'nginx.conf'),
      '-e',
      path.join(workDir, 'error.log'),
      '-g',
      'daemon off;',
    ],
    { PATH: process.env.PATH },
  );
  const nginxUrl = `http://127.0.0.1:${nginxPort}`;
  await waitHttp(nginx, `${nginxUrl}/healthz`);

  // The bench's own proxies run only when measured: an idle process is still one more on two cores.
  const ownProxy = (
    name: 'node' | 'undici' | 'floor' | 'bare',
    script: string,
    port: number,
    args: string[],
  ) =>
    targets.includes(name)
      ? startProxy(name, script, port, args)
      : { child: undefined, url: `http://127.0.0.1:${port}` };
  const nodeProxy = await ownProxy('node', 'node-proxy.mjs', nodePort, [String(postsPort)]);
  const undiciProxy = await ownProxy('undici', 'undici-proxy.mjs', undiciPort, [String(postsPort)]);
  const bare = await ownProxy('bare', 'bare-read.mjs', barePort, [DATABASE_URL]);
  const data = await benchAccount(usersUrl, postsUrl, gatewayUrl, token, POSTS);
  // Started once the key exists: it stands in a Map for the gateway's key cache.
  const floor = await ownProxy('floor', 'floor-proxy.mjs', floorPort, [
    String(postsPort),
    token,
    data.key,
    String(data.userId),
  ]);
  const groups: Record<string, Child> = { nginx, gateway, posts, users };
  for (const [name, proxy] of Object.entries({ node: nodeProxy, undici: undiciProxy, floor, bare }))
    if (proxy.child) groups[name] = proxy.child;
  if (baseline) groups.baseline = baseline;
  if (untraced) groups.untraced = untraced;
  if (compare) groups.compare = compare;
  benchDb = createDb(DATABASE_URL, { schema: 'posts', max: 1 });
  const urls: Record<Target, string> = {
    direct: postsUrl,
    compare: compareUrl,
    bare: bare.url,
    nginx: nginxUrl,
    node: nodeProxy.url,
    undici: undiciProxy.url,
    floor: floor.url,
    gateway: gatewayUrl,
    gateway304: gatewayUrl,
    baseline: baselineUrl,
    untraced: untracedUrl,
  };

  const cores = os.cpus().length;
  console.log(`\n${commandLine('bench:gateway')}`);
  console.log(
    `GET /api/v1/posts/{id} (${POSTS} post${POSTS > 1 ? 's' : ''} in rotation), ` +
      `${CONNECTIONS.join(' then ')} connections${RATE ? ` paced to ~${RATE} req/s` : ''}, wrk ${THREADS} thread, ${WARMUP} s warm-up + ${DURATION} s measured ` +
      `per run, ${ROUNDS} round(s) of ${targets.join(', ')}`,
  );
  console.log(
    `node ${process.version}, ${tools.nginx.replace('nginx version: ', '')} (1 worker), ${tools.wrk}, ` +
      `${cores} cores shared by wrk, nginx, the three services, PostgreSQL and Redis; ` +
      `services at LOG_LEVEL=${LOG_LEVEL}, NODE_ENV=production; load average at start ${os.loadavg()[0]!.toFixed(2)}`,
  );

  console.log(
    `pids: ${Object.entries(groups)
      .map(([name, child]) => `${name} ${child.proc.pid}`)
      .join(', ')}`,
  );

  const rows: Row[] = [];
  for (const connections of CONNECTIONS) {
    console.log(
      `\nwrk command per run: wrk -t${Math.min(THREADS, connections)} -c${connections} -d${DURATION}s ` +
        `--timeout 5s -s <target>.lua <url>`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      // Signatures are valid for 5 minutes: sign afresh for every round.
      const byTarget = plans(urls, data, token);
      // direct, nginx, gateway, then gateway, nginx, direct: a drift during the run (the database
      // warming, dead row versions piling up) then weighs on every target alike.
      for (const target of round % 2 ? targets : [...targets].reverse()) {
        const plan = byTarget[target];
        if (target === 'gateway304') await currentTags(plan);
        await verify(plan);
        const warm = runWrk(plan, connections, WARMUP, `r${round}-warmup`);
        if (warm.non2xx)
          console.warn(`${target} warm-up: ${warm.non2xx} non-2xx (first ${warm.firstBadStatus})`);
        // Every read bumps a view count, and the engagement index includes views: no HOT update,
        // so dead row versions and index entries pile up and slow every later run. Start each
        // measured run from a vacuumed table.
        await benchDb`vacuum posts.posts`;
        const spansBefore = sinkUrl ? ((await sinkSpans(sinkUrl)).gateway ?? 0) : 0;
        const before = cpuSnapshot(groups, DATABASE_NAME);
        const result = runWrk(plan, connections, DURATION, `r${round}`);
        const cpuMs = { wrk: result.cpuMs, ...cpuUsedMs(before, cpuSnapshot(groups, DATABASE_NAME)) };
        const gatewaySpans = sinkUrl ? ((await sinkSpans(sinkUrl)).gateway ?? 0) - spansBefore : undefined;
        const rps = result.requests / (result.durationUs / 1e6);
        rows.push({
          connections,
          round,
          target,
          rps,
          result,
          cpuMs,
          loadAvg: os.loadavg()[0]!,
          gatewaySpans,
        });
        console.log(
          `c=${connections} round ${round} ${target.padEnd(7)} ${rps.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${ms(result.p50Us)} ms  p99 ${ms(result.p99Us)} ms  non-2xx ${result.non2xx}`,
        );
      }
    }
  }

  for (const connections of CONNECTIONS) {
    const level = rows.filter((r) => r.connections === connections);
    console.log(`\n=== ${connections} connection${connections > 1 ? 's' : ''} ===`);
    printTable(level);
    report(level, targets, connections);
  }
  // BENCH_TIMELINE: when the slow answers come, straight to posts-service (and BENCH_COMPARE_ROOT's)
  // and through the gateway.
  if (TIMELINE > 0) {
    const byTarget = plans(urls, data, token);
    for (const target of targets.filter((t) => ['direct', 'compare', 'bare', 'gateway'].includes(t))) {
      const { url, requests } = byTarget[target];
      console.log(`\n${target}, one request at a time for ${TIMELINE} s (bench/timeline.ts):`);
      for (const line of slowAnswers(await record({ url, requests }, TIMELINE))) console.log(`  ${line}`);
    }
  }

  const failed = rows.filter(
    (r) =>
      r.result.non2xx ||
      r.result.errors.connect + r.result.errors.read + r.result.errors.write + r.result.errors.timeout,
  );
  if (failed.length) {
    process.exitCode = 1;
    console.error(`\n${failed.length} measured run(s) had non-2xx answers or socket errors: see the table`);
  }
}

let baselineDir: string | undefined;

let benchDb: Sql | undefined;
let cleaning: Promise<void> | undefined;
/** nginx first (it holds connections to posts-service), then the gateway, the services, the OTLP sink. */
const STOP_ORDER = [
  'nginx',
  'node',
  'undici',
  'floor',
  'gateway',
  'baseline',
  'untraced',
  'compare',
  'bare',
  'posts',
  'users',
  'otlp-sink',
];
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await benchDb?.end({ timeout: 5 }).catch(() => {});
    for (const name of STOP_ORDER) {
      const child = children.all.find((c) => c.name === name);
      if (child) await stopChild(child);
    }
    if (baselineDir) removeCheckout(root, baselineDir);
    baselineDir = undefined;
    await clearBenchPlace(place, SERVICES);
    if ((process.exitCode && process.exitCode !== 0) || KEEP_LOGS) {
      console.error(`logs kept in ${workDir}`);
    } else {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
    if (PROFILE_DIR) console.log(`gateway CPU profile in ${PROFILE_DIR}`);
  })();
  return cleaning;
}

runBench(main, cleanup);
