/**
 * Webhooks end to end (issue #5): `npm run bench:webhooks`, loopback only, bounded. users-service,
 * posts-service, webhook-service and the gateway run as separate processes; receivers are node:http
 * servers in this process. Posts and webhooks are created through the gateway with an API key.
 * 1. Latency: 1 receiver, BENCH_E2E_POSTS (200) posts in sequence, POST sent -> delivery received, with
 *    the stages in between read from the database; BENCH_E2E_PAUSE_MS (0) adds random pauses between posts.
 * 2. Throughput: BENCH_ENDPOINTS (10) receivers, BENCH_FANOUT_POSTS (300) posts, BENCH_IN_FLIGHT (8) at once.
 * Every delivery is verified with standardwebhooks. Isolated: database community_bench_<ns> (dropped at
 * start and end), exchange bench.<ns>.events, Redis prefix bench:<ns>:, free ports, with <ns> from
 * BENCH_NAMESPACE (wh). Env: BENCH_WH_DATABASE_URL, BENCH_REDIS_URL, BENCH_AMQP_URL, BENCH_LOG_LEVEL (warn).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createDb, type Sql } from '@community/db';
import { actor, apiClient, freePort } from '@community/test-harness';
import { benchPlace, clearBenchAmqp, clearRedisPrefix, dropBenchDatabase, intEnv } from './infra';
import { commandLine, runBench } from './processes';

const root = path.resolve(__dirname, '..');
const place = benchPlace('wh', 'BENCH_WH_DATABASE_URL');
const SERVICES = ['posts-service', 'users-service', 'webhook-service'];
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const E2E_POSTS = intEnv('BENCH_E2E_POSTS', 200);
const FANOUT_POSTS = intEnv('BENCH_FANOUT_POSTS', 300);
const ENDPOINTS = intEnv('BENCH_ENDPOINTS', 10);
const IN_FLIGHT = intEnv('BENCH_IN_FLIGHT', 8);
const E2E_PAUSE_MS = Number(process.env.BENCH_E2E_PAUSE_MS ?? 0);
const WARMUP_POSTS = 5;

/** Epoch milliseconds with sub-millisecond resolution: comparable with PostgreSQL's now() on this host. */
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Child processes and isolated infrastructure

type Child = { name: string; proc: ChildProcess; log: string };
const children: Child[] = [];
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wh-'));
const running = (c: Child) => c.proc.exitCode === null && c.proc.signalCode === null;
const logLines = (c: Child) =>
  (fs.existsSync(c.log) ? fs.readFileSync(c.log, 'utf8').split('\n') : []).filter(Boolean);

function startService(name: string, dir: string, env: Record<string, string>): Child {
  const log = path.join(workDir, `${name}.log`);
  const fd = fs.openSync(log, 'a');
  const args = ['--conditions=source', '--import', 'tsx', path.join(dir, 'src/main.ts')];
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', LOG_LEVEL };
  const proc = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', fd, fd],
    env: { ...base, ...env },
  });
  fs.closeSync(fd);
  children.push({ name, proc, log });
  return children.at(-1)!;
}

async function waitReady(child: Child, url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    if (!running(child)) break;
    const ok = await fetch(`${url}/readyz`).then(
      (res) => res.arrayBuffer().then(() => res.ok),
      () => false,
    );
    if (ok) return;
  }
  throw new Error(`${child.name} did not get ready:\n${logLines(child).slice(-20).join('\n')}`);
}

async function stopChild(child: Child): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((resolve) => child.proc.once('exit', resolve));
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const dropDatabase = () => dropBenchDatabase(place.databaseUrl);
const clearRedis = () => clearRedisPrefix(place.redisUrl, place.redisPrefix);
const clearAmqp = () => clearBenchAmqp(place.amqpUrl, place.exchange, SERVICES);

// ---------------------------------------------------------------------------------------------
// Receivers: every request is answered 200 at once and kept for verification after the phase

type Delivery = {
  receiver: number;
  at: number;
  postId: number;
  body: string;
  headers: Record<string, string>;
};
const received: Delivery[] = [];
const firstArrival = new Map<string, Delivery>(); // `${receiver}:${postId}`
const servers: http.Server[] = [];
let wake: (() => void) | undefined;

async function startReceiver(receiver: number): Promise<string> {
  const server = http.createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const postId = /"data":\{"id":(\d+)/.exec(body)?.[1] ?? '-1';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const delivery = { receiver, at, postId: Number(postId), body, headers };
      received.push(delivery);
      if (!firstArrival.has(`${receiver}:${postId}`)) firstArrival.set(`${receiver}:${postId}`, delivery);
      wake?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${receiver}`;
}

function waitFor(done: () => boolean, ms: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      wake = undefined;
      reject(new Error(`no ${what} within ${ms / 1000} s`));
    }, ms);
    wake = () => {
      if (!done()) return;
      clearTimeout(timer);
      wake = undefined;
      resolve();
    };
    wake();
  });
}

/** Signature failures and duplicate webhook-ids among the receivers' deliveries. */
function check(receivers: number[], secrets: Map<number, string>) {
  const mine = received.filter((d) => receivers.includes(d.receiver));
  const failures = mine.filter((d) => {
    try {
      new Webhook(secrets.get(d.receiver)!).verify(d.body, d.headers);
      return false;
    } catch {
      return true;
    }
  }).length;
  const duplicates = mine.length - new Set(mine.map((d) => `${d.receiver} ${d.headers['webhook-id']}`)).size;
  return { failures, duplicates };
}

// ---------------------------------------------------------------------------------------------
// Figures

function pct(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  return [at(50), at(90), at(99), s.at(-1)!].map((v) => v.toFixed(1).padStart(8)).join('');
}
const row = (label: string, values: number[]) =>
  console.log(values.some(Number.isNaN) ? label : `${label.padEnd(44)}${pct(values)}`);

async function main(): Promise<void> {
  await dropDatabase();
  await clearRedis();
  await clearAmqp();
  const token = randomBytes(32).toString('base64url');
  const port = { users: 0, posts: 0, webhooks: 0, gateway: 0 };
  for (const name of Object.keys(port) as (keyof typeof port)[]) port[name] = await freePort();
  const url = (name: keyof typeof port) => `http://127.0.0.1:${port[name]}`;
  const common = {
    DATABASE_URL: place.databaseUrl,
    AMQP_URL: place.amqpUrl,
    AMQP_EXCHANGE: place.exchange,
    INTERNAL_TOKEN: token,
  };
  const services: [keyof typeof port, string, Record<string, string>][] = [
    ['users', 'users-service', { USERS_SERVICE_PORT: String(port.users) }],
    ['posts', 'posts-service', { POSTS_SERVICE_PORT: String(port.posts) }],
    [
      'webhooks',
      'webhook-service',
      { WEBHOOK_SERVICE_PORT: String(port.webhooks), SECRETS_KEY: randomBytes(32).toString('base64') },
    ],
    [
      'gateway',
      'gateway',
      { GATEWAY_PORT: String(port.gateway), REDIS_URL: place.redisUrl, REDIS_PREFIX: place.redisPrefix },
    ],
  ];
  const upstreams = { USERS_SERVICE_URL: url('users'), POSTS_SERVICE_URL: url('posts') };
  Object.assign(services[3]![2], { ...upstreams, WEBHOOK_SERVICE_URL: url('webhooks') });
  // One after the other: they migrate the same database on first start.
  for (const [name, dir, env] of services) {
    const extra = { SHUTDOWN_GRACE_MS: '1000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    await waitReady(startService(name, dir, { ...common, ...extra, ...env }), url(name));
  }

  let key = '';
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${url('gateway')}/api/v1${p}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      data: (JSON.parse(text) as { data: { id: number; secret: string } }).data,
      text,
    };
  };
  const name = `bench_${Date.now().toString(36)}`;
  const password = 'a long bench password';
  const user = await api('POST', '/auth/register', {
    username: name,
    email: `${name}@example.test`,
    password,
  });
  // A key (read, write, webhooks) on an enterprise plan with limits far above the run, and a category.
  const users = apiClient(url('users'), token);
  const owner = actor(user.data.id, 'member', ['read', 'write', 'keys', 'webhooks']);
  const minted = await users(owner, 'POST', '/keys', {
    body: { name: 'bench', scopes: ['read', 'write', 'webhooks'] },
  });
  const admin = actor(1, 'admin', ['read', 'write', 'moderate', 'admin']);
  const plan = await users(admin, 'PUT', `/users/${user.data.id}/plan`, {
    body: { plan: 'enterprise', hourly_limit: 100_000_000, daily_limit: 1_000_000_000 },
  });
  const category = await apiClient(url('posts'), token)(admin, 'POST', '/categories', {
    body: { name: 'Bench' },
  });
  if (user.status !== 201 || minted.status !== 201 || plan.status !== 200 || category.status !== 201) {
    throw new Error(`setup failed: ${user.text} ${minted.text} ${plan.text} ${category.text}`);
  }
  key = minted.body.data.key as string;
  const categoryId = category.body.data.id as number;

  const secrets = new Map<number, string>();
  const subscribe = async (receiver: number) => {
    const hook = await api('POST', '/webhooks', {
      url: await startReceiver(receiver),
      events: ['post.created'],
    });
    if (hook.status !== 201) throw new Error(`webhook not created: ${hook.text}`);
    secrets.set(receiver, hook.data.secret);
    return hook.data.id;
  };
  let n = 0;
  const createPost = async () => {
    const sent = now();
    const post = await api('POST', '/posts', {
      ...{ title: `Bench post ${++n}`, content: 'Lorem ipsum dolor sit amet. '.repeat(20) },
      ...{ category_id: categoryId, tags: ['bench'] },
    });
    if (post.status !== 201) throw new Error(`post not created (${post.status}): ${post.text}`);
    return { id: post.data.id, sent, answered: now() };
  };
  const arrived = (receivers: number[], ids: number[]) =>
    ids.every((id) => receivers.every((r) => firstArrival.has(`${r}:${id}`)));

  console.log(`\n${commandLine('bench:webhooks')}`);
  console.log(
    `node ${process.version}, ${os.cpus().length} cores shared by the 4 services, receivers, PostgreSQL, ` +
      `RabbitMQ, Redis; LOG_LEVEL=${LOG_LEVEL}; load average at start ${os.loadavg()[0]!.toFixed(2)}`,
  );

  // 1. Latency, one receiver, one post at a time.
  const e2eHook = await subscribe(0);
  for (let i = 0; i < WARMUP_POSTS; i++) {
    const { id } = await createPost();
    await waitFor(() => arrived([0], [id]), 30_000, `warm-up delivery of post ${id}`);
  }
  const samples: { id: number; sent: number; answered: number; at: number }[] = [];
  for (let i = 0; i < E2E_POSTS; i++) {
    // A random pause unlocks the posts from the dispatcher's poll ticks (sequential posts fall in step).
    if (E2E_PAUSE_MS > 0) await sleep(Math.random() * E2E_PAUSE_MS);
    const post = await createPost();
    await waitFor(() => arrived([0], [post.id]), 15_000, `delivery of post ${post.id}`);
    samples.push({ ...post, at: firstArrival.get(`0:${post.id}`)!.at });
  }
  const e2eCheck = check([0], secrets);
  db = createDb(place.databaseUrl, { schema: 'public', max: 1 });
  const stages = await db<{ post: number; written: number; claimed: number; fanned: number; done: number }[]>`
    select (o.payload->'data'->>'id')::int as post,
      extract(epoch from o.created_at)::float8 * 1000 as written,
      extract(epoch from o.published_at)::float8 * 1000 as claimed,
      extract(epoch from d.created_at)::float8 * 1000 as fanned,
      extract(epoch from d.updated_at)::float8 * 1000 as done
    from posts.outbox o join webhooks.deliveries d on d.event_id = o.event_id and d.endpoint_id = ${e2eHook}
    where o.event = 'post.created'`;
  const byPost = new Map(stages.map((s) => [s.post, s]));
  const joined = samples.map((s) => ({ ...s, ...byPost.get(s.id)! }));
  const deleted = await api('DELETE', `/webhooks/${e2eHook}`);
  if (deleted.status !== 200) throw new Error(`webhook not deleted: ${deleted.text}`);

  const pause = E2E_PAUSE_MS > 0 ? `, random pause 0-${E2E_PAUSE_MS} ms between posts` : '';
  console.log(`\n1. End-to-end latency: ${E2E_POSTS} posts in sequence${pause}, 1 receiver (ms)`);
  console.log(`${''.padEnd(44)}${['p50', 'p90', 'p99', 'max'].map((h) => h.padStart(8)).join('')}`);
  const figures: [string, (s: (typeof joined)[number]) => number][] = [
    ['POST sent -> delivery received (end to end)', (s) => s.at - s.sent],
    ['POST sent -> 201 received', (s) => s.answered - s.sent],
    ['201 received -> delivery received', (s) => s.at - s.answered],
    ['stages (PostgreSQL now() = start of each tx):', () => NaN],
    ['  POST sent -> post transaction begins', (s) => s.written - s.sent],
    ['  post transaction -> relay claims the row', (s) => s.claimed - s.written],
    ['  relay claim -> webhook-service fan-out tx', (s) => s.fanned - s.claimed],
    ['  fan-out tx -> delivery received', (s) => s.at - s.fanned],
    ['  delivery received -> attempt recorded', (s) => s.done - s.at],
  ];
  for (const [label, f] of figures) row(label, joined.map(f));
  console.log(`signature failures ${e2eCheck.failures}, duplicate webhook-ids ${e2eCheck.duplicates}`);

  // 2. Throughput to ENDPOINTS receivers.
  const fanReceivers = Array.from({ length: ENDPOINTS }, (_, i) => i + 1);
  for (const r of fanReceivers) await subscribe(r);
  const warm = await createPost();
  await waitFor(() => arrived(fanReceivers, [warm.id]), 30_000, 'warm-up deliveries');
  // webhook-service's claim query plans on these statistics: stale ones make it slow (see RESULTS.md).
  const [stats] = await db<{ rows: number; changed: number; analyzed: number }[]>`
    select n_live_tup::int as rows, n_mod_since_analyze::int as changed, autoanalyze_count::int as analyzed
    from pg_stat_user_tables where schemaname = 'webhooks' and relname = 'deliveries'`;
  const ids: number[] = [];
  const sentAt = new Map<number, number>();
  const t0 = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < FANOUT_POSTS) {
        const post = await createPost();
        ids.push(post.id);
        sentAt.set(post.id, post.sent);
      }
    }),
  );
  const posted = now();
  const total = ENDPOINTS * FANOUT_POSTS;
  const timedOut = await waitFor(() => arrived(fanReceivers, ids), 180_000, `all ${total} deliveries`).then(
    () => undefined,
    (err: Error) => err.message,
  );
  const pairs = ids.flatMap((id) => fanReceivers.map((r) => firstArrival.get(`${r}:${id}`)));
  const last = Math.max(...pairs.map((d) => d?.at ?? 0));
  const missing = pairs.filter((d) => !d).length;
  await sleep(1000); // late duplicates
  const fanCheck = check(fanReceivers, secrets);
  const wanted = new Set(ids);
  const got = received.filter((d) => d.receiver > 0 && wanted.has(d.postId));
  const [retried] = await db<{ n: number }[]>`
    select count(*)::int as n from webhooks.deliveries where attempts <> 1 or status <> 'succeeded'`;
  console.log(`\n2. Throughput: ${FANOUT_POSTS} posts, ${IN_FLIGHT} in flight, ${ENDPOINTS} receivers`);
  console.log(
    `webhooks.deliveries at the start: ${stats?.rows} rows, ${stats?.changed} changed since the last ` +
      `analyze, auto-analyzed ${stats?.analyzed} time(s)`,
  );
  console.log(
    `posts created in ${(posted - t0).toFixed(0)} ms (${((FANOUT_POSTS * 1000) / (posted - t0)).toFixed(0)} posts/s)`,
  );
  console.log(
    `all ${total} deliveries in ${(last - t0).toFixed(0)} ms from the first POST: ` +
      `${((total * 1000) / (last - t0)).toFixed(0)} deliveries/s; last delivery ${(last - posted).toFixed(0)} ms after the last 201`,
  );
  row(
    'POST sent -> delivery received (p50 p90 p99 max)',
    pairs.flatMap((d) => (d ? [d.at - sentAt.get(d.postId)!] : [])),
  );
  console.log(
    `received ${got.length} (expected ${total}), missing ${missing}${timedOut ? ` (${timedOut})` : ''}, ` +
      `duplicate webhook-ids ${fanCheck.duplicates}, same post twice at a receiver ${got.length - (total - missing)}, ` +
      `signature failures ${fanCheck.failures}, ` +
      `deliveries not succeeded at the first attempt ${retried?.n ?? '?'}`,
  );
  console.log(
    `service log lines at warn or above: ${children.map((c) => `${c.name} ${logLines(c).length}`).join(', ')}`,
  );
  if (e2eCheck.failures + e2eCheck.duplicates + fanCheck.failures + fanCheck.duplicates + missing) {
    process.exitCode = 1;
  }
}

let db: Sql | undefined;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await db?.end({ timeout: 5 }).catch(() => {});
    for (const name of ['gateway', 'webhooks', 'posts', 'users']) {
      const child = children.find((c) => c.name === name);
      if (child) await stopChild(child);
    }
    for (const server of servers) server.close().closeAllConnections();
    for (const step of [dropDatabase, clearRedis, clearAmqp]) {
      await step().catch((err: unknown) => console.error(`cleanup: ${step.name}: ${(err as Error).message}`));
    }
    if (process.exitCode) console.error(`logs kept in ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  })();
  return cleaning;
}

runBench(main, cleanup);
