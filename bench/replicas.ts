/**
 * Coordination cost of a second replica (issue #23): `npm run bench:replicas`, loopback only,
 * bounded. The whole stack runs as child processes (the e2e suite's owned stack) once with one
 * process of each service and once with two of each behind round-robin balancers. Each run:
 * BENCH_REQUESTS (3000) GET /api/v1/posts/{id} through the gateway entry at BENCH_CONCURRENCY (8),
 * counting what Redis and PostgreSQL did meanwhile — Redis commands by name (INFO commandstats),
 * PostgreSQL transactions of the run's database (pg_stat_database, read 11 s after the work, as its
 * backends publish their counts late) — and the same over an idle window of BENCH_IDLE_SECONDS (12)
 * with no traffic, so the per-request figure is net of background work (outbox relays, dispatchers,
 * batched view and key-usage writes), which is reported per second on its own.
 * Isolated: each run gets its own database, exchange and Redis prefix (dropped at the end). It reads
 * Redis's server-wide counters: run it on a machine where nothing else uses that Redis.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import postgres from 'postgres';
import { createPost } from '../e2e/src/flows';
import { startOwnedStack } from '../e2e/src/stack/owned-stack';
import { UNLIMITED, World } from '../e2e/src/world';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 12);
/**
 * PostgreSQL 15 backends publish their counts at most once a second while busy and within 10 s once
 * idle: every reading waits this long after the work it counts.
 */
const PG_STATS_LAG_MS = 11_000;

// The owned stack finds its infrastructure as the test harness's global setup would hand it over
// (read when the stack starts, so setting them here, after the imports, is in time).
process.env.TEST_PG_URL ??= PG_URL;
process.env.TEST_REDIS_URL ??= REDIS_URL;
process.env.TEST_AMQP_URL ??= AMQP_URL;
process.env.TEST_RUN_ID ??= `bench${randomBytes(3).toString('hex')}`;
process.env.E2E_LOG_LEVEL ??= 'warn';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Counters {
  /** Calls per Redis command, without the ones this script sends to read them. */
  redis: Map<string, number>;
  pgTransactions: number;
  at: number;
}

async function counters(redis: Redis, pg: postgres.Sql, database: string): Promise<Counters> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const [, name, n] of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm))
    if (name !== 'info') calls.set(name!, Number(n));
  await pg`select pg_stat_clear_snapshot()`;
  const [row] = await pg<{ n: string }[]>`
    select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = ${database}`;
  return { redis: calls, pgTransactions: Number(row?.n ?? 0), at: performance.now() };
}

function delta(a: Counters, b: Counters) {
  const byCommand = new Map<string, number>();
  for (const [name, n] of b.redis) {
    const d = n - (a.redis.get(name) ?? 0);
    if (d > 0) byCommand.set(name, d);
  }
  return {
    redis: [...byCommand.values()].reduce((sum, n) => sum + n, 0),
    byCommand,
    pg: b.pgTransactions - a.pgTransactions,
    // The window the counts cover: PostgreSQL's lag is the same at both ends.
    seconds: (b.at - a.at) / 1000,
  };
}

async function load(url: string, key: string): Promise<{ seconds: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) failed++;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, failed };
}

async function run(replicas: number) {
  const stack = await startOwnedStack(`bench_rep${replicas}`, { replicas });
  const redis = new Redis(REDIS_URL);
  const pg = postgres(PG_URL, { max: 1, onnotice: () => {} });
  try {
    const world = new World(stack.baseUrl, stack.admin);
    const reader = await world.member({ plan: UNLIMITED });
    const post = await createPost(world.as(reader), await world.category());
    const url = `${stack.baseUrl}/api/v1/posts/${post.id}`;
    await load(url, reader.key); // warm-up: caches, connections, JIT
    await sleep(PG_STATS_LAG_MS);
    const idleStart = await counters(redis, pg, stack.databaseName);
    await sleep(IDLE_SECONDS * 1000);
    const idleEnd = await counters(redis, pg, stack.databaseName);
    const idle = delta(idleStart, idleEnd);
    const before = idleEnd;
    const { seconds, failed } = await load(url, reader.key);
    await sleep(PG_STATS_LAG_MS);
    const after = await counters(redis, pg, stack.databaseName);
    const busy = delta(before, after);
    const perSecond = { redis: idle.redis / idle.seconds, pg: idle.pg / idle.seconds };
    const net = {
      redis: (busy.redis - perSecond.redis * busy.seconds) / REQUESTS,
      pg: (busy.pg - perSecond.pg * busy.seconds) / REQUESTS,
    };
    const commands = [...busy.byCommand]
      .map(
        ([name, n]) =>
          `${name} ${((n - (idle.byCommand.get(name) ?? 0) * (busy.seconds / idle.seconds)) / REQUESTS).toFixed(2)}`,
      )
      .join(', ');
    return { replicas, rps: REQUESTS / seconds, failed, net, perSecond, commands };
  } finally {
    redis.disconnect();
    await pg.end({ timeout: 5 });
    await stack.stop();
  }
}

async function main() {
  console.log(
    `GET /api/v1/posts/{id} through the gateway entry: ${REQUESTS} requests at c=${CONCURRENCY}, idle window ${IDLE_SECONDS} s`,
  );
  const results = [];
  for (const replicas of [1, 2]) {
    const result = await run(replicas);
    results.push(result);
    console.log(
      `${replicas} of each: ${result.rps.toFixed(0)} req/s, ${result.failed} failed; per request ` +
        `${result.net.redis.toFixed(2)} Redis commands, ${result.net.pg.toFixed(3)} PostgreSQL transactions; ` +
        `idle ${result.perSecond.redis.toFixed(1)} Redis commands/s, ${result.perSecond.pg.toFixed(1)} PostgreSQL transactions/s`,
    );
    console.log(`  Redis per request by command: ${result.commands}`);
  }
  const [one, two] = results;
  console.log(
    `second replica adds per request: ${(two!.net.redis - one!.net.redis).toFixed(2)} Redis commands, ` +
      `${(two!.net.pg - one!.net.pg).toFixed(3)} PostgreSQL transactions; in the background ` +
      `${(two!.perSecond.redis - one!.perSecond.redis).toFixed(1)} Redis commands/s and ` +
      `${(two!.perSecond.pg - one!.perSecond.pg).toFixed(1)} PostgreSQL transactions/s`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
