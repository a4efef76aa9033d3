/**
 * Instructions per `GET /api/v1/posts/{id}` in posts-service, counted by valgrind's callgrind
 * (`npm run bench:posts-instructions`): unlike CPU time on a shared 2-core machine, the count hardly
 * moves between runs, so a change of a few microseconds shows. The service runs under callgrind, a
 * warm-up lets V8 optimise the hot path, then callgrind's counters are zeroed, a fixed number of
 * signed reads is sent (the client is not counted), and the counters are dumped.
 *
 * Env: BENCH_ROOTS (this checkout; or several, comma-separated, each with its own `npm ci`: the same
 *      measurement for each, one after the other, e.g. before and after a change), BENCH_REQUESTS
 *      (3000 per measured batch), BENCH_BATCHES (3: a batch that has a major GC or more of the
 *      once-a-second work in it counts more, so the median of the batches is reported),
 *      BENCH_WARMUP (3000), BENCH_CONCURRENCY (4), BENCH_IF_NONE_MATCH (unset: when
 *      1, every read carries a tag that does not match), BENCH_NAMESPACE (cgp: database
 *      `community_bench_<ns>`, exchange `bench.<ns>.events`, dropped at the end),
 *      BENCH_DATABASE_URL, BENCH_AMQP_URL, BENCH_KEEP (unset: when set, callgrind files are kept).
 * Needs valgrind (Debian package); startup under callgrind takes a minute or two.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '@community/db';
import { topologyNames } from '@community/events';
import { signIdentity } from '@community/http-kit';
import { actor, apiClient, deleteAmqpObjects, freePort } from '@community/test-harness';
import { waitAnswering } from './ready';
import { seedPosts } from './seed-posts';

const root = path.resolve(__dirname, '..');
const NAMESPACE = process.env.BENCH_NAMESPACE ?? 'cgp';
if (!/^[a-z0-9]+$/.test(NAMESPACE)) throw new Error('BENCH_NAMESPACE must be lower-case letters and digits');
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/community_bench_${NAMESPACE}`;
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const DATABASE_NAME = decodeURIComponent(new URL(DATABASE_URL).pathname.slice(1));
const EXCHANGE = `bench.${NAMESPACE}.events`;
const ROOTS = (process.env.BENCH_ROOTS ?? root).split(',').map((r) => path.resolve(r.trim()));
const REQUESTS = intEnv('BENCH_REQUESTS', 3000);
const BATCHES = intEnv('BENCH_BATCHES', 3);
const WARMUP = intEnv('BENCH_WARMUP', 3000);
const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 4);
const IF_NONE_MATCH = process.env.BENCH_IF_NONE_MATCH === '1';
const POSTS = 20;

function intEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cg-'));

async function dropDatabase(): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(DATABASE_NAME)) throw new Error(`refusing to drop database "${DATABASE_NAME}"`);
  const url = new URL(DATABASE_URL);
  url.pathname = '/postgres';
  const sql = createDb(url.toString(), { schema: 'public', max: 1 });
  try {
    await sql.unsafe(`drop database if exists "${DATABASE_NAME}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function clearAmqp(): Promise<void> {
  const names = topologyNames(EXCHANGE, 'posts-service');
  const x = topologyNames(EXCHANGE, 'x');
  await deleteAmqpObjects(AMQP_URL, {
    queues: [names.queue, names.deadLetterQueue],
    exchanges: [x.exchange, x.deadLetterExchange],
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent, timeout: 120_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** `count` signed reads over the posts, `CONCURRENCY` at a time; every one must answer 200. */
async function load(base: string, ids: number[], token: string, count: number): Promise<void> {
  const as = actor(1_000_001, 'member', ['read']);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const url = `/api/v1/posts/${ids[next++ % ids.length]}`;
      const headers = signIdentity(token, { method: 'GET', url, actor: as, clientIp: '127.0.0.1' });
      if (IF_NONE_MATCH) headers['if-none-match'] = '"0-not-this-one"';
      const status = await get(base + url, headers);
      if (status !== 200) throw new Error(`GET ${url} answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The instructions callgrind counted since it was last zeroed, from its newest dump. */
function dumpedInstructions(pid: number): number {
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  const dumps = fs
    .readdirSync(workDir)
    .filter((f) => f.startsWith(`cg.${pid}.`))
    .map((f) => path.join(workDir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  const text = fs.readFileSync(dumps[0]!, 'utf8');
  const match = /^(?:summary|totals):\s*(\d+)/m.exec(text);
  if (!match) throw new Error(`no totals in ${dumps[0]}`);
  return Number(match[1]);
}

async function measure(checkout: string): Promise<number[]> {
  await dropDatabase();
  await clearAmqp();
  const token = randomBytes(32).toString('base64url');
  const port = await freePort();
  const log = path.join(workDir, `posts-${path.basename(checkout)}.log`);
  const fd = fs.openSync(log, 'a');
  const proc = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${workDir}/cg.%p`,
      process.execPath,
      '--conditions=source',
      '--import',
      'tsx',
      path.join('posts-service', 'src', 'main.ts'),
    ],
    {
      cwd: checkout,
      stdio: ['ignore', fd, fd],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DATABASE_URL,
        AMQP_URL,
        AMQP_EXCHANGE: EXCHANGE,
        INTERNAL_TOKEN: token,
        POSTS_SERVICE_PORT: String(port),
        SHUTDOWN_GRACE_MS: '1000',
      },
    },
  );
  fs.closeSync(fd);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitAnswering(
      {
        name: 'posts-service',
        running: () => proc.exitCode === null,
        log: () => fs.readFileSync(log, 'utf8'),
      },
      `${base}/readyz`,
      { timeoutMs: 600_000, intervalMs: 1000 },
    );
    const call = apiClient(base, token);
    const ids = await seedPosts(call, 1_000_001, POSTS);
    await load(base, ids, token, WARMUP);
    // Several measured batches: their spread says how far to trust the figure.
    const perBatch: number[] = [];
    for (let batch = 0; batch < BATCHES; batch++) {
      execFileSync('callgrind_control', ['--zero', String(proc.pid)], { stdio: 'ignore' });
      await load(base, ids, token, REQUESTS);
      perBatch.push(dumpedInstructions(proc.pid!) / REQUESTS);
    }
    return perBatch;
  } finally {
    agent.destroy();
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  console.log(
    `GET /api/v1/posts/{id} under callgrind: ${WARMUP} warm-up, then ${BATCHES} × ${REQUESTS} measured reads, ` +
      `${CONCURRENCY} at a time${IF_NONE_MATCH ? ', each with an If-None-Match that does not match' : ''}; node ${process.version}`,
  );
  for (const checkout of ROOTS) {
    const commit = execFileSync('git', ['-C', checkout, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' })
      .trim()
      .slice(0, 90);
    const perBatch = await measure(checkout);
    const median = [...perBatch].sort((a, b) => a - b)[Math.floor(perBatch.length / 2)]!;
    const fmt = (n: number) => Math.round(n).toLocaleString('en');
    console.log(
      `${checkout} (${commit}): median ${fmt(median)} instructions per request ` +
        `(batches: ${perBatch.map(fmt).join(', ')})`,
    );
  }
}

main()
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await dropDatabase().catch(() => {});
    await clearAmqp().catch(() => {});
    if (!process.env.BENCH_KEEP) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`callgrind files in ${workDir}`);
  });
