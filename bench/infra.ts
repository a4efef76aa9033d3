/** What the benches share to stay apart from `npm start` and the tests: their own database, Redis prefix and exchange. */
import Redis from 'ioredis';
import { createDb } from '@community/db';
import { topologyNames } from '@community/events';
import { deleteAmqpObjects } from '@community/test-harness';

/** Where one bench run keeps its data, apart from `npm start`, the tests and other benches. */
export interface BenchPlace {
  databaseUrl: string;
  /** The database's name, from its URL. */
  databaseName: string;
  redisUrl: string;
  redisPrefix: string;
  amqpUrl: string;
  exchange: string;
}

/**
 * BENCH_NAMESPACE (else `fallback`) names the database `community_bench_<ns>`, the exchange
 * `bench.<ns>.events` and the Redis prefix `bench:<ns>:`, so two benches can run side by side;
 * `databaseEnv`, BENCH_REDIS_URL and BENCH_AMQP_URL point elsewhere. `suffix` sets apart one run of
 * several in one bench.
 */
export function benchPlace(fallback: string, databaseEnv = 'BENCH_DATABASE_URL', suffix = ''): BenchPlace {
  const namespace = `${process.env.BENCH_NAMESPACE ?? fallback}${suffix}`;
  if (!/^[a-z0-9]+$/.test(namespace))
    throw new Error('BENCH_NAMESPACE must be lower-case letters and digits');
  const databaseUrl =
    process.env[databaseEnv] ?? `postgres://postgres@127.0.0.1:5432/community_bench_${namespace}`;
  return {
    databaseUrl,
    databaseName: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)),
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: `bench:${namespace}:`,
    amqpUrl: process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    exchange: `bench.${namespace}.events`,
  };
}

/** What the data services of a bench run start with: its database and exchange, the token, a short grace. */
export function dataServiceEnv(place: BenchPlace, token: string): Record<string, string> {
  return {
    DATABASE_URL: place.databaseUrl,
    AMQP_URL: place.amqpUrl,
    AMQP_EXCHANGE: place.exchange,
    INTERNAL_TOKEN: token,
    SHUTDOWN_GRACE_MS: '1000',
  };
}

/** A positive integer from the environment. */
export function intEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** Node flags from a variable, space-separated (none when it is unset or empty). */
export function flagsEnv(name: string): string[] {
  return (process.env[name] ?? '').split(' ').filter(Boolean);
}

/** Drops the bench's own database (a plain lower-case name only: never anything else). */
export async function dropBenchDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop database "${name}"`);
  url.pathname = '/postgres';
  const sql = createDb(url.toString(), { schema: 'public', max: 1 });
  try {
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Deletes every key under the bench's Redis prefix. */
export async function clearRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Deletes the queues of `services` on the bench's exchange, and the exchange. */
export async function clearBenchAmqp(amqpUrl: string, exchange: string, services: string[]): Promise<void> {
  const queues = services.flatMap((service) => {
    const names = topologyNames(exchange, service);
    return [names.queue, names.deadLetterQueue];
  });
  const names = topologyNames(exchange, 'x');
  await deleteAmqpObjects(amqpUrl, { queues, exchanges: [names.exchange, names.deadLetterExchange] });
}

/**
 * Drops the bench's database, Redis keys and queues (of `services`) and exchange; a step that fails
 * is said and the others still run.
 */
export async function clearBenchPlace(place: BenchPlace, services: string[]): Promise<void> {
  const steps: [string, () => Promise<void>][] = [
    ['database', () => dropBenchDatabase(place.databaseUrl)],
    ['redis', () => clearRedisPrefix(place.redisUrl, place.redisPrefix)],
    ['amqp', () => clearBenchAmqp(place.amqpUrl, place.exchange, services)],
  ];
  for (const [what, step] of steps) {
    await step().catch((err: unknown) =>
      console.error(`cleanup of ${what} failed: ${(err as Error).message}`),
    );
  }
}
