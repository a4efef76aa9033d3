/**
 * One run of `npm run bench:webhooks`: the four services of one checkout (with one or more
 * webhook-service replicas) on a database, exchange and Redis prefix of its own, then
 * 1. latency: one receiver, posts in sequence, POST sent -> delivery received, with the stages in
 *    between read from the database;
 * 2. throughput: BENCH_ENDPOINTS receivers, BENCH_FANOUT_POSTS posts, BENCH_IN_FLIGHT at once.
 * Every delivery is verified with standardwebhooks. The checkout must be built already when services
 * run built (bench/processes.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createDb, type Sql } from '@community/db';
import { actor, apiClient, freePort } from '@community/test-harness';
import { cpuSnapshot, cpuUsedMs, type CpuGroups } from './cpu';
import { percentile } from './measure';
import { clearBenchPlace, dataServiceEnv, intEnv, type BenchPlace } from './infra';
import { waitHttp, type BenchChildren } from './processes';
import { enterpriseAccount } from './seed-posts';
import { now, Receivers } from './webhook-receivers';

const E2E_POSTS = intEnv('BENCH_E2E_POSTS', 200);
const FANOUT_POSTS = intEnv('BENCH_FANOUT_POSTS', 300);
const ENDPOINTS = intEnv('BENCH_ENDPOINTS', 10);
const IN_FLIGHT = intEnv('BENCH_IN_FLIGHT', 8);
const E2E_PAUSE_MS = Number(process.env.BENCH_E2E_PAUSE_MS ?? 0);
const WARMUP_POSTS = 5;
export const SERVICES = ['posts-service', 'users-service', 'webhook-service'];
export const SETTINGS = { E2E_POSTS, FANOUT_POSTS, ENDPOINTS, IN_FLIGHT };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one run measured, for the table that sets runs side by side. */
export interface RunFigures {
  label: string;
  /** Phase 1: POST sent -> delivery received, and POST sent -> 201, one post at a time (ms). */
  endToEnd: number[];
  created: number[];
  /** Phase 2: posts a second with IN_FLIGHT at once, their POST -> 201 and POST -> delivery (ms). */
  postsPerSecond: number;
  fanCreated: number[];
  fanEndToEnd: number[];
  deliveriesPerSecond: number;
  /** When the last of all deliveries arrived after the last 201 (ms). */
  lastAfterPosts: number;
  maxInFlight: number;
  /** Lost, duplicated or unverifiable deliveries: must be 0. */
  faults: number;
  /** Phase 2's CPU a post (ms), by process group: each service, its PostgreSQL backends, Redis, the broker. */
  cpuPerPost: Record<string, number>;
}

export interface Target {
  label: string;
  /** The checkout whose services run. */
  root: string;
  webhookReplicas: number;
  place: BenchPlace;
  children: BenchChildren;
}

function row(label: string, values: number[]): void {
  if (values.some(Number.isNaN)) return console.log(label);
  const cells = [50, 90, 99, 100].map((p) => percentile(values, p).toFixed(1).padStart(8));
  console.log(`${label.padEnd(44)}${cells.join('')}`);
}

interface Urls {
  gateway: string;
  users: string;
  posts: string;
}

/** Starts the target's services one after the other (they migrate the same database on first start). */
async function startStack(target: Target, token: string): Promise<Urls> {
  const { root, place, children } = target;
  const port = async () => String(await freePort());
  const common = { ...dataServiceEnv(place, token), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  const start = async (name: string, dir: string, portVar: string, env: Record<string, string> = {}) => {
    const p = await port();
    const child = children.service(name, dir, { ...common, ...env, [portVar]: p }, [], root);
    await waitHttp(child, `http://127.0.0.1:${p}/readyz`);
    return `http://127.0.0.1:${p}`;
  };
  const users = await start('users', 'users-service', 'USERS_SERVICE_PORT');
  const posts = await start('posts', 'posts-service', 'POSTS_SERVICE_PORT');
  const secretsKey = { SECRETS_KEY: randomBytes(32).toString('base64') };
  const webhooks = await start('webhooks', 'webhook-service', 'WEBHOOK_SERVICE_PORT', secretsKey);
  for (let i = 2; i <= target.webhookReplicas; i++)
    await start(`webhooks-${i}`, 'webhook-service', 'WEBHOOK_SERVICE_PORT', secretsKey);
  const gateway = await start('gateway', 'gateway', 'GATEWAY_PORT', {
    ...{ REDIS_URL: place.redisUrl, REDIS_PREFIX: place.redisPrefix },
    ...{ USERS_SERVICE_URL: users, POSTS_SERVICE_URL: posts, WEBHOOK_SERVICE_URL: webhooks },
  });
  return { gateway, users, posts };
}

/** An account with a key (read, write, webhooks) on an enterprise plan far above the run, and a category. */
async function setUp(urls: Urls, token: string) {
  const scopes = ['read', 'write', 'webhooks'];
  const { key } = await enterpriseAccount(urls.users, urls.gateway, token, scopes);
  const admin = actor(1, 'admin', ['read', 'write', 'moderate', 'admin']);
  const category = await apiClient(urls.posts, token)(admin, 'POST', '/categories', {
    body: { name: 'Bench' },
  });
  if (category.status !== 201) throw new Error(`category not created: ${category.text}`);
  return { key, categoryId: category.body.data.id as number };
}

/** Runs both phases against `target`; prints its detailed figures and returns the comparable ones. */
export async function runWebhooks(target: Target): Promise<RunFigures> {
  const { place, children } = target;
  await clearBenchPlace(place, SERVICES);
  const token = randomBytes(32).toString('base64url');
  const receivers = new Receivers();
  let db: Sql | undefined;
  try {
    const urls = await startStack(target, token);
    const { key, categoryId } = await setUp(urls, token);
    db = createDb(place.databaseUrl, { schema: 'public', max: 1 });
    return await measure(target, { gateway: urls.gateway, key, categoryId, receivers, db });
  } finally {
    receivers.close();
    await db?.end({ timeout: 5 }).catch(() => {});
    await children.stopAll();
    await clearBenchPlace(place, SERVICES);
  }
}

interface Session {
  gateway: string;
  key: string;
  categoryId: number;
  receivers: Receivers;
  db: Sql;
}

async function measure(target: Target, session: Session): Promise<RunFigures> {
  const { receivers } = session;
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${session.gateway}/api/v1${p}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      data: (JSON.parse(text) as { data: { id: number; secret: string } }).data,
      text,
    };
  };
  const secrets = new Map<number, string>();
  const subscribe = async (receiver: number) => {
    const hook = await api('POST', '/webhooks', {
      url: await receivers.start(receiver),
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
      ...{ category_id: session.categoryId, tags: ['bench'] },
    });
    if (post.status !== 201) throw new Error(`post not created (${post.status}): ${post.text}`);
    return { id: post.data.id, sent, answered: now() };
  };

  console.log(`\n## ${target.label}: ${target.root}, ${target.webhookReplicas} webhook-service process(es)`);
  const latency = await latencyPhase(session, { subscribe, createPost, api });
  const groups = Object.fromEntries(target.children.all.map((c) => [c.name, c]));
  const snapshot = async () => {
    const backends = await session.db<{ pid: number; name: string }[]>`
      select pid, application_name as name from pg_stat_activity where datname = current_database()`;
    return cpuSnapshot(groups, target.place.databaseName, new Map(backends.map((b) => [b.pid, b.name])));
  };
  const throughput = await throughputPhase(session, { subscribe, createPost, snapshot });
  const cpuPerPost = Object.fromEntries(
    Object.entries(throughput.cpuMs).map(([name, ms]) => [name, ms / FANOUT_POSTS]),
  );
  console.log(
    `CPU a post and its ${ENDPOINTS} deliveries (ms): ` +
      Object.entries(cpuPerPost)
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(', '),
  );
  const e2eCheck = receivers.check([0], secrets);
  const fanCheck = receivers.check(throughput.receivers, secrets);
  console.log(
    `signature failures ${e2eCheck.failures + fanCheck.failures}, duplicate webhook-ids ` +
      `${e2eCheck.duplicates + fanCheck.duplicates}, most deliveries open at one receiver ${receivers.maxInFlight} (cap 10)`,
  );
  console.log(
    `service log lines at warn or above: ${target.children.all.map((c) => `${c.name} ${logLines(c.log)}`).join(', ')}`,
  );
  return {
    label: target.label,
    ...latency,
    ...throughput.figures,
    maxInFlight: receivers.maxInFlight,
    cpuPerPost,
    faults:
      e2eCheck.failures + e2eCheck.duplicates + fanCheck.failures + fanCheck.duplicates + throughput.missing,
  };
}

function logLines(file: string): number {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

type CreatePost = () => Promise<{ id: number; sent: number; answered: number }>;
type Api = (method: string, p: string) => Promise<{ status: number; text: string }>;

/** Phase 1: one receiver, one post at a time, with the stages read from the database. */
async function latencyPhase(
  { receivers, db }: Session,
  {
    subscribe,
    createPost,
    api,
  }: { subscribe: (r: number) => Promise<number>; createPost: CreatePost; api: Api },
) {
  const hook = await subscribe(0);
  for (let i = 0; i < WARMUP_POSTS; i++) {
    const { id } = await createPost();
    await receivers.waitFor(() => receivers.arrived([0], [id]), 30_000, `warm-up delivery of post ${id}`);
  }
  const samples: { id: number; sent: number; answered: number; at: number }[] = [];
  for (let i = 0; i < E2E_POSTS; i++) {
    // A random pause unlocks the posts from the dispatcher's poll ticks (sequential posts fall in step).
    if (E2E_PAUSE_MS > 0) await sleep(Math.random() * E2E_PAUSE_MS);
    const post = await createPost();
    await receivers.waitFor(() => receivers.arrived([0], [post.id]), 15_000, `delivery of post ${post.id}`);
    samples.push({ ...post, at: receivers.first(0, post.id)!.at });
  }
  const stages = await db<{ post: number; written: number; claimed: number; fanned: number; done: number }[]>`
    select (o.payload->'data'->>'id')::int as post,
      extract(epoch from o.created_at)::float8 * 1000 as written,
      extract(epoch from o.published_at)::float8 * 1000 as claimed,
      extract(epoch from d.created_at)::float8 * 1000 as fanned,
      extract(epoch from d.updated_at)::float8 * 1000 as done
    from posts.outbox o join webhooks.deliveries d on d.event_id = o.event_id and d.endpoint_id = ${hook}
    where o.event = 'post.created'`;
  const byPost = new Map(stages.map((s) => [s.post, s]));
  const joined = samples.map((s) => ({ ...s, ...byPost.get(s.id)! }));
  const deleted = await api('DELETE', `/webhooks/${hook}`);
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
  return { endToEnd: samples.map((s) => s.at - s.sent), created: samples.map((s) => s.answered - s.sent) };
}

/** Phase 2: ENDPOINTS receivers, FANOUT_POSTS posts created IN_FLIGHT at a time. */
async function throughputPhase(
  { receivers, db }: Session,
  {
    subscribe,
    createPost,
    snapshot,
  }: {
    subscribe: (r: number) => Promise<number>;
    createPost: CreatePost;
    snapshot: () => Promise<CpuGroups>;
  },
) {
  const fanReceivers = Array.from({ length: ENDPOINTS }, (_, i) => i + 1);
  for (const r of fanReceivers) await subscribe(r);
  const warm = await createPost();
  await receivers.waitFor(() => receivers.arrived(fanReceivers, [warm.id]), 30_000, 'warm-up deliveries');
  const ids: number[] = [];
  const sentAt = new Map<number, number>();
  const created: number[] = [];
  const writesBefore = await tableWrites(db);
  const cpuBefore = await snapshot();
  const t0 = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < FANOUT_POSTS) {
        const post = await createPost();
        ids.push(post.id);
        sentAt.set(post.id, post.sent);
        created.push(post.answered - post.sent);
      }
    }),
  );
  const posted = now();
  const total = ENDPOINTS * FANOUT_POSTS;
  const timedOut = await receivers
    .waitFor(() => receivers.arrived(fanReceivers, ids), 180_000, `all ${total} deliveries`)
    .then(
      () => undefined,
      (err: Error) => err.message,
    );
  const cpuMs = cpuUsedMs(cpuBefore, await snapshot());
  const pairs = ids.flatMap((id) => fanReceivers.map((r) => receivers.first(r, id)));
  const last = Math.max(...pairs.map((d) => d?.at ?? 0));
  const missing = pairs.filter((d) => !d).length;
  await sleep(1000); // late duplicates; PostgreSQL's backends report their counts within a second
  const writes = writesPerPost(writesBefore, await tableWrites(db));
  const wanted = new Set(ids);
  const got = receivers.received.filter((d) => d.receiver > 0 && wanted.has(d.postId));
  const [retried] = await db<{ n: number }[]>`
    select count(*)::int as n from webhooks.deliveries where attempts <> 1 or status <> 'succeeded'`;
  const fanEndToEnd = pairs.flatMap((d) => (d ? [d.at - sentAt.get(d.postId)!] : []));
  const figures = {
    postsPerSecond: (FANOUT_POSTS * 1000) / (posted - t0),
    fanCreated: created,
    fanEndToEnd,
    deliveriesPerSecond: (total * 1000) / (last - t0),
    lastAfterPosts: last - posted,
  };
  console.log(`\n2. Throughput: ${FANOUT_POSTS} posts, ${IN_FLIGHT} in flight, ${ENDPOINTS} receivers`);
  console.log(
    `posts created in ${(posted - t0).toFixed(0)} ms (${figures.postsPerSecond.toFixed(0)} posts/s)`,
  );
  console.log(
    `all ${total} deliveries in ${(last - t0).toFixed(0)} ms from the first POST: ` +
      `${figures.deliveriesPerSecond.toFixed(0)} deliveries/s; last delivery ${figures.lastAfterPosts.toFixed(0)} ms after the last 201`,
  );
  row('POST sent -> 201 received (p50 p90 p99 max)', created);
  row('POST sent -> delivery received', fanEndToEnd);
  console.log(
    `received ${got.length} (expected ${total}), missing ${missing}${timedOut ? ` (${timedOut})` : ''}, ` +
      `same post twice at a receiver ${got.length - (total - missing)}, ` +
      `deliveries not succeeded at the first attempt ${retried?.n ?? '?'}`,
  );
  console.log(`PostgreSQL a post and its deliveries: ${writes}`);
  return { receivers: fanReceivers, figures, missing, cpuMs };
}

/** Transactions and rows written so far, per table, in the run's database. */
async function tableWrites(db: Sql): Promise<Map<string, number>> {
  const rows = await db<{ name: string; n: number }[]>`
    select 'transactions' as name, xact_commit::float8 as n from pg_stat_database where datname = current_database()
    union all
    select schemaname || '.' || relname, (n_tup_ins + n_tup_upd + n_tup_del)::float8 from pg_stat_user_tables`;
  return new Map(rows.map((r) => [r.name, r.n]));
}

/** The busiest tables' rows written (inserted, updated, deleted) a post, and transactions a post. */
function writesPerPost(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, n]) => [name, (n - (before.get(name) ?? 0)) / FANOUT_POSTS] as const)
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(1)}`)
    .join(', ');
}
