/**
 * Instructions per `GET /api/v1/posts/{id}` in the gateway, counted by valgrind's callgrind
 * (`npm run bench:gateway-instructions`): CPU time per request on this shared machine moves 20–40%
 * from run to run, so the few-percent changes left on the gateway's hot path (issue #22) cannot be
 * told apart with `bench:gateway`; the instruction count hardly moves. users-service and
 * posts-service run as usual; the gateway of each checkout runs under callgrind in turn (as
 * deployed: `NODE_OPTIONS`' flags, built unless BENCH_RUN=source), gets a warm-up of a fixed number
 * of reads with an enterprise account's API key, then batches of counted reads (the services and
 * the client are not counted). Instructions are not time — a cache miss costs more than an add —
 * so `bench:gateway` stays the measure of the targets. After the gateways, the bench's own Node
 * proxies are counted the same way, as the gateway's yardsticks: the bare one (`node-proxy.mjs`) and
 * the contract floor (`floor-proxy.mjs`).
 *
 * Env: BENCH_ROOTS (this checkout; or several, comma-separated, each with its own `npm ci`: their
 *      gateways one after the other against the same services, e.g. before and after a change),
 *      BENCH_REQUESTS (3000 per batch), BENCH_BATCHES (3; the median is reported), BENCH_WARMUP
 *      (10000: with 3000 the gateway's count still fell from batch to batch, 845k, 571k, 484k),
 *      BENCH_CONCURRENCY (8), BENCH_PROXIES (node,floor: which of the bench's proxies to count
 *      after the gateways, of node, undici and floor; empty for none), BENCH_NAMESPACE (cgg:
 *      database `community_bench_<ns>`, exchange `bench.<ns>.events`, Redis prefix `bench:<ns>:`,
 *      all removed at the end),
 *      BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_AMQP_URL, BENCH_KEEP (callgrind files kept),
 *      BENCH_TRACING (unset: when 1, every service traces every request to a local OTLP sink),
 *      BENCH_UNTRACED (unset: when 1, with BENCH_TRACING=1, each checkout's gateway is counted twice,
 *      traced, then untraced in front of the same traced services: its own tracing's cost alone).
 * Needs valgrind (Debian package); the gateway's start under callgrind takes a minute or two.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@community/test-harness';
import {
  benchPlace,
  clearBenchAmqp,
  dataServiceEnv,
  clearRedisPrefix,
  dropBenchDatabase,
  intEnv,
} from './infra';
import { callgrindArgs, countedBatches, loadReads, reportCounted, reportLine } from './instructions';
import {
  build,
  DEPLOYED_NODE_ARGS,
  serviceArgs,
  BenchChildren,
  traceEverything,
  UNTRACED_ENV,
  stopChild,
  waitHttp,
  type Child,
} from './processes';
import { waitAnswering } from './ready';
import { benchAccount, signedRead } from './seed-posts';

const root = path.resolve(__dirname, '..');
const place = benchPlace('cgg');
const {
  databaseUrl: DATABASE_URL,
  redisUrl: REDIS_URL,
  redisPrefix: REDIS_PREFIX,
  amqpUrl: AMQP_URL,
  exchange: EXCHANGE,
} = place;
const ROOTS = (process.env.BENCH_ROOTS ?? root).split(',').map((r) => path.resolve(r.trim()));
const REQUESTS = intEnv('BENCH_REQUESTS', 3000);
const BATCHES = intEnv('BENCH_BATCHES', 3);
const WARMUP = intEnv('BENCH_WARMUP', 10_000);
const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 8);
const PROXIES = (process.env.BENCH_PROXIES ?? 'node,floor').split(',').filter(Boolean);
/**
 * The bench's own proxies: script, its arguments after the listen port, and what a request through
 * it carries: the API key (the floor checks it), or the identity as the gateway would sign it (the
 * bare proxy passes requests on as they are, as in `bench:gateway`).
 */
const PROXY_SCRIPTS: Record<string, { script: string; args: (a: ProxyArgs) => string[]; sends: Sends }> = {
  node: { script: 'node-proxy.mjs', args: ({ postsPort }) => [String(postsPort)], sends: 'identity' },
  undici: { script: 'undici-proxy.mjs', args: ({ postsPort }) => [String(postsPort)], sends: 'identity' },
  floor: {
    script: 'floor-proxy.mjs',
    args: ({ postsPort, token, key, userId }) => [String(postsPort), token, key, String(userId)],
    sends: 'key',
  },
};
type Sends = 'key' | 'identity';
interface ProxyArgs {
  postsPort: number;
  token: string;
  key: string;
  userId: number;
}
interface Account {
  userId: number;
  key: string;
  ids: number[];
}
const POSTS = 20;
const TRACED = process.env.BENCH_TRACING === '1';
/** Each checkout's gateway runs once per entry: traced as the stack (false), then untraced (true). */
const UNTRACED_TOO = TRACED && process.env.BENCH_UNTRACED === '1' ? [false, true] : [false];

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cgg-'));
const children = new BenchChildren({ cwd: root, workDir, logLevel: 'warn' });

async function clearInfra(): Promise<void> {
  await dropBenchDatabase(DATABASE_URL);
  await clearRedisPrefix(REDIS_URL, REDIS_PREFIX);
  await clearBenchAmqp(AMQP_URL, EXCHANGE, ['posts-service', 'users-service']);
}

/**
 * Waits until the gateway answers a read with 200: its first key lookups, cold under callgrind, may
 * outlast their deadline and answer 503 for a while.
 */
async function answering(url: string, headers: Record<string, string>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, { headers }).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    if (attempt === 120) throw new Error(`GET ${url} answered ${res?.status ?? 'nothing'} for two minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function main(): Promise<void> {
  console.log(
    `GET /api/v1/posts/{id} through the gateway under callgrind: ${WARMUP} warm-up, then ${BATCHES} × ` +
      `${REQUESTS} counted reads, ${CONCURRENCY} at a time; node ${process.version}`,
  );
  await clearInfra();
  const token = randomBytes(32).toString('base64url');
  const common = dataServiceEnv(place, token);
  if (TRACED) await traceEverything(children, root);
  else if (process.env.BENCH_UNTRACED === '1') throw new Error('BENCH_UNTRACED needs BENCH_TRACING=1');
  build(root);
  for (const checkout of ROOTS) if (checkout !== root) build(checkout);
  const [usersPort, postsPort] = [await freePort(), await freePort()];
  const users = children.service('users', 'users-service', {
    ...common,
    USERS_SERVICE_PORT: String(usersPort),
  });
  const usersUrl = `http://127.0.0.1:${usersPort}`;
  // One after the other: both migrate the same database on first start.
  await waitHttp(users, `${usersUrl}/readyz`);
  const posts = children.service('posts', 'posts-service', {
    ...common,
    POSTS_SERVICE_PORT: String(postsPort),
  });
  const postsUrl = `http://127.0.0.1:${postsPort}`;
  await waitHttp(posts, `${postsUrl}/readyz`);

  const unknown = PROXIES.filter((name) => !PROXY_SCRIPTS[name]);
  if (unknown.length) throw new Error(`BENCH_PROXIES: no proxy ${unknown.join(', ')} (node, undici, floor)`);

  let account: Account | undefined;
  for (const checkout of ROOTS)
    for (const untraced of UNTRACED_TOO) {
      const port = await freePort();
      const gateway = children.start(
        `gateway-${path.basename(checkout)}${untraced ? '-untraced' : ''}`,
        'valgrind',
        [...callgrindArgs(workDir), process.execPath, ...serviceArgs('gateway', DEPLOYED_NODE_ARGS)],
        children.serviceEnv({
          ...common,
          REDIS_URL,
          REDIS_PREFIX,
          GATEWAY_PORT: String(port),
          USERS_SERVICE_URL: usersUrl,
          POSTS_SERVICE_URL: postsUrl,
          WEBHOOK_SERVICE_URL: 'http://127.0.0.1:9',
          // Under callgrind every answer is slow: the adaptive bound would shrink and queue the 8
          // readers past QUEUE_TIMEOUT_MS. Counting instructions needs every read sent at once.
          UPSTREAM_MAX_IN_FLIGHT: '64',
          ...(untraced ? UNTRACED_ENV : {}),
        }),
        checkout,
      );
      const base = `http://127.0.0.1:${port}`;
      await waitAnswering(
        {
          name: gateway.name,
          running: () => gateway.proc.exitCode === null,
          log: () => fs.readFileSync(gateway.log, 'utf8'),
        },
        `${base}/readyz`,
        { timeoutMs: 600_000, intervalMs: 1000 },
      );
      account ??= await benchAccount(usersUrl, postsUrl, base, token, POSTS);
      try {
        const note = TRACED ? (untraced ? ', untraced' : ', traced') : '';
        reportCounted(checkout, await count(gateway, base, account, 'key', token), note);
      } finally {
        await stopChild(gateway);
      }
    }

  for (const name of PROXIES) {
    // Counted after a gateway, whose start made the account and its posts.
    if (!account) break;
    const { script, args, sends } = PROXY_SCRIPTS[name]!;
    const port = await freePort();
    const proxy = children.start(
      name,
      'valgrind',
      [
        ...callgrindArgs(workDir),
        process.execPath,
        ...DEPLOYED_NODE_ARGS,
        path.join(__dirname, script),
        String(port),
        ...args({ postsPort, token, key: account.key, userId: account.userId }),
      ],
      children.serviceEnv({}),
    );
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitHttp(proxy, `${base}/healthz`);
      reportLine(`${name} (bench/${script})`, await count(proxy, base, account, sends, token));
    } finally {
      await stopChild(proxy);
    }
  }
}

/** The warm-up, then the counted batches, of reads through `base` (a process under callgrind). */
async function count(proc: Child, base: string, account: Account, sends: Sends, token: string) {
  const paths = account.ids.map((id) => `/api/v1/posts/${id}`);
  const withKey = { authorization: `Bearer ${account.key}` };
  const headersFor = (url: string): Record<string, string> =>
    sends === 'key' ? withKey : signedRead(token, account.userId, url);
  const read = (n: number) => loadReads(base, paths, headersFor, n, CONCURRENCY);
  await answering(base + paths[0]!, headersFor(paths[0]!));
  await read(WARMUP);
  return countedBatches(proc.proc.pid!, workDir, BATCHES, REQUESTS, () => read(REQUESTS));
}

main()
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await children.stopAll();
    await clearInfra().catch(() => {});
    if (!process.env.BENCH_KEEP) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`callgrind files and logs in ${workDir}`);
  });
