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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiClient, freePort } from '@community/test-harness';
import { benchPlace, clearBenchAmqp, dropBenchDatabase, intEnv } from './infra';
import { callgrindArgs, countedBatches, loadReads, reportCounted } from './instructions';
import { waitAnswering } from './ready';
import { seedPosts, signedRead } from './seed-posts';

const root = path.resolve(__dirname, '..');
const { databaseUrl: DATABASE_URL, amqpUrl: AMQP_URL, exchange: EXCHANGE } = benchPlace('cgp');
const ROOTS = (process.env.BENCH_ROOTS ?? root).split(',').map((r) => path.resolve(r.trim()));
const REQUESTS = intEnv('BENCH_REQUESTS', 3000);
const BATCHES = intEnv('BENCH_BATCHES', 3);
const WARMUP = intEnv('BENCH_WARMUP', 3000);
const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 4);
const IF_NONE_MATCH = process.env.BENCH_IF_NONE_MATCH === '1';
const POSTS = 20;

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cg-'));

/** Signed reads over the posts, as the gateway would sign them. */
function signedReads(token: string) {
  return (url: string) => {
    const headers = signedRead(token, 1_000_001, url);
    if (IF_NONE_MATCH) headers['if-none-match'] = '"0-not-this-one"';
    return headers;
  };
}

async function measure(checkout: string): Promise<number[]> {
  await dropBenchDatabase(DATABASE_URL);
  await clearBenchAmqp(AMQP_URL, EXCHANGE, ['posts-service']);
  const token = randomBytes(32).toString('base64url');
  const port = await freePort();
  const log = path.join(workDir, `posts-${path.basename(checkout)}.log`);
  const fd = fs.openSync(log, 'a');
  const proc = spawn(
    'valgrind',
    [
      ...callgrindArgs(workDir),
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
    const paths = (await seedPosts(call, 1_000_001, POSTS)).map((id) => `/api/v1/posts/${id}`);
    const read = (count: number) => loadReads(base, paths, signedReads(token), count, CONCURRENCY);
    await read(WARMUP);
    return await countedBatches(proc.pid!, workDir, BATCHES, REQUESTS, () => read(REQUESTS));
  } finally {
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
  for (const checkout of ROOTS) reportCounted(checkout, await measure(checkout));
}

main()
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await dropBenchDatabase(DATABASE_URL).catch(() => {});
    await clearBenchAmqp(AMQP_URL, EXCHANGE, ['posts-service']).catch(() => {});
    if (!process.env.BENCH_KEEP) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`callgrind files in ${workDir}`);
  });
