/**
 * Reads at scale (DESIGN.md §18, "Data at scale"): `npm run bench:scale` (loopback only, bounded).
 * For each size of BENCH_SCALE_SIZES it seeds a database of its own, `community_bench_scale_<n>`,
 * with `npm run seed`'s code (scripts/seed-database.ts; a database already seeded to that size is
 * reused, one seeded to another size is dropped and seeded again), then starts posts-service and
 * users-service on it (bench/processes.ts; BENCH_RUN=source or built) and times each read at c=1,
 * straight to the services with the identity the gateway would sign.
 *
 * Targets: each read's p99 ≤ 1.5× its p99 at the first size; the commonest searchable word's p99
 * ≤ 10× a post read's p99 at every size.
 *
 * Env: BENCH_SCALE_SIZES (100000,1000000; 10000000 on demand), BENCH_SCALE_USERS (100000 members at
 * every size), BENCH_REQUESTS (200 per read and size). Seeding runs at nice 10.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Sql } from '@community/db';
import { encodeCursor } from '@community/http-kit';
import { freePort } from '@community/test-harness';
import { SERVICE_SCHEMA as POSTS_SERVICE } from '../posts-service/src/start';
import { SERVICE_SCHEMA as USERS_SERVICE } from '../users-service/src/start';
import { seedDatabase } from '../scripts/seed-database';
import { VOCABULARY } from '../scripts/seed-words';
import { dropBenchDatabase, intEnv } from './infra';
import { measure } from './measure';
import { build, BenchChildren, commandLine, DEPLOYED_NODE_ARGS, runBench, waitHttp } from './processes';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100000,1000000').split(',').map(Number);
if (!SIZES.every((n) => Number.isInteger(n) && n > 0))
  throw new Error('BENCH_SCALE_SIZES must be positive integers, e.g. 100000,1000000');
const USERS = intEnv('BENCH_SCALE_USERS', 100_000);
const REQUESTS = intEnv('BENCH_REQUESTS', 200);
const SEED_NICENESS = 10;

const children = new BenchChildren({
  cwd: path.resolve(__dirname, '..'),
  workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-')),
  logLevel: 'warn',
});

const databaseUrl = (posts: number) => `postgres://postgres@127.0.0.1:5432/community_bench_scale_${posts}`;

/** What a size's database holds and cost to make. */
interface Seeded {
  posts: number;
  seconds: number | null;
  bytes: number;
}

/**
 * The database of `posts` posts: reused when it holds that many posts and USERS members (its seeding
 * time is kept as the database's comment), else dropped and seeded afresh.
 */
async function seeded(posts: number): Promise<Seeded> {
  const url = databaseUrl(posts);
  const name = new URL(url).pathname.slice(1);
  const admin = createDb(url.replace(/\/[^/]+$/, '/postgres'), { schema: 'public', max: 1 });
  try {
    const [found] = await admin<{ comment: string | null; bytes: number }[]>`
      select shobj_description(oid, 'pg_database') as comment, pg_database_size(oid)::float8 as bytes
      from pg_database where datname = ${name}`;
    if (found && (await holds(url, posts))) {
      const seconds = found.comment?.match(/ in ([\d.]+) s$/)?.[1];
      return { posts, seconds: seconds === undefined ? null : Number(seconds), bytes: found.bytes };
    }
    if (found) await dropBenchDatabase(url);
    console.log(`seeding ${posts} posts, ${USERS} users into ${name} (nice ${SEED_NICENESS})…`);
    const before = os.getPriority();
    os.setPriority(Math.max(before, SEED_NICENESS));
    const result = await seedDatabase({
      databaseUrl: url,
      posts,
      users: USERS,
      log: (line) => console.log(`  ${line}`),
    }).finally(() => restorePriority(before));
    const seconds = result.seconds.toFixed(1);
    await admin.unsafe(
      `comment on database "${name}" is 'seeded ${posts} posts, ${USERS} users in ${seconds} s'`,
    );
    return { posts, seconds: result.seconds, bytes: result.databaseBytes };
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** True when the database at `url` holds exactly `posts` posts and USERS members. */
async function holds(url: string, posts: number): Promise<boolean> {
  const sql = createDb(url, { schema: POSTS_SERVICE.schema, max: 1 });
  try {
    const [row] = await sql<{ posts: number; users: number }[]>`
      select (select count(*) from posts)::int as posts, (select count(*) from ${sql(USERS_SERVICE.schema)}.users)::int as users`;
    return row!.posts === posts && row!.users === USERS;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Back to the bench's own priority, so the services it starts next are not niced (needs the right to). */
function restorePriority(priority: number): void {
  try {
    os.setPriority(priority);
  } catch {
    console.warn(`could not return to priority ${priority}: the services run niced`);
  }
}

/** What the reads need from a size's data: a post deep in the list, a post, a member, a common word. */
async function targets(sql: Sql, posts: number) {
  const [deep] = await sql<{ id: number }[]>`
    select id from posts where deleted_at is null order by created_at desc, id desc
    offset ${Math.floor(posts * 0.9)} limit 1`;
  const [post] = await sql<
    { id: number }[]
  >`select id from posts where id >= ${Math.floor(posts / 2)} order by id limit 1`;
  const [user] = await sql<
    { id: number }[]
  >`select id from ${sql(USERS_SERVICE.schema)}.users order by id desc limit 1`;
  // The most frequent word a search keeps: stop words match nothing (search_english drops them).
  const [word] = await sql<{ word: string }[]>`
    select w as word from unnest(${VOCABULARY}::text[]) with ordinality v(w, rank)
    where to_tsvector('search_english', w) <> ''::tsvector order by rank limit 1`;
  return { deep: deep!.id, post: post!.id, user: user!.id, word: word!.word };
}

interface Reading {
  p50: number;
  p99: number;
}

/** Each read's p50/p99 at c=1 on one size, the services started on its database and stopped after. */
async function readsAt(posts: number, token: string): Promise<Map<string, Reading>> {
  const url = databaseUrl(posts);
  const sql = createDb(url, { schema: POSTS_SERVICE.schema, max: 1 });
  const target = await targets(sql, posts).finally(() => sql.end({ timeout: 5 }));
  // Small pools: posts 3 + 2 for searches, users 2 + 2, beside everyone else on this PostgreSQL.
  const service = async (dir: string, portVar: string, pool: number) => {
    const port = await freePort();
    const env = {
      DATABASE_URL: url,
      INTERNAL_TOKEN: token,
      AMQP_EXCHANGE: `bench.scale${posts}.events`,
      DB_POOL_MAX: String(pool),
      SEARCH_CONCURRENCY: '1',
      [portVar]: String(port),
    };
    const child = children.service(`${dir}-${posts}`, dir, env, DEPLOYED_NODE_ARGS);
    await waitHttp(child, `http://127.0.0.1:${port}/readyz`);
    return `http://127.0.0.1:${port}`;
  };
  try {
    const postsUrl = await service('posts-service', 'POSTS_SERVICE_PORT', 3);
    const usersUrl = await service('users-service', 'USERS_SERVICE_PORT', 2);
    const cursor = encodeCursor(
      { name: 'posts', scope: JSON.stringify([undefined, undefined, undefined]) },
      target.deep,
    );
    const reads: [string, string, string][] = [
      ['latest page 1', postsUrl, '/posts'],
      ['cursor page (90 % deep)', postsUrl, `/posts?cursor=${cursor}`],
      ['trending', postsUrl, '/posts?sort=trending'],
      ['a post', postsUrl, `/posts/${target.post}`],
      ['a user', usersUrl, `/users/${target.user}`],
      ['users?q=ka', usersUrl, '/users?q=ka'],
      [`search ?q=${target.word}`, postsUrl, `/posts?q=${encodeURIComponent(target.word)}`],
    ];
    const readings = new Map<string, Reading>();
    for (const [name, base, read] of reads) {
      await measure(base, token, read, 1, Math.min(50, REQUESTS)); // warm-up
      const { p50, p99 } = await measure(base, token, read, 1, REQUESTS);
      console.log(
        `  ${name.padEnd(28)} p50 ${p50.toFixed(1).padStart(7)} ms  p99 ${p99.toFixed(1).padStart(7)} ms`,
      );
      readings.set(name.startsWith('search') ? 'search (commonest word)' : name, { p50, p99 });
    }
    return readings;
  } finally {
    await children.stopAll();
  }
}

const ms = (n: number) => n.toFixed(1);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function report(sizes: Seeded[], readings: Map<string, Reading>[]): void {
  const col = 26;
  const first = readings[0]!;
  console.log(
    `\n${'read: p99 ms (× at first size)'.padEnd(30)}${sizes.map((s) => `${s.posts} posts`.padStart(col)).join('')}`,
  );
  for (const name of first.keys()) {
    const cells = readings.map((r) => {
      const p99 = r.get(name)!.p99;
      return `${ms(p99)} (${(p99 / first.get(name)!.p99).toFixed(2)}×)`.padStart(col);
    });
    console.log(`${name.padEnd(30)}${cells.join('')}`);
  }
  const search = readings.map(
    (r) => (r.get('search (commonest word)')!.p99 / r.get('a post')!.p99).toFixed(1) + '×',
  );
  console.log(`${'search p99 / post p99'.padEnd(30)}${search.map((c) => c.padStart(col)).join('')}`);
  const seconds = sizes.map((s) => (s.seconds === null ? 'not recorded' : `${s.seconds.toFixed(0)} s`));
  console.log(`${'seeding time'.padEnd(30)}${seconds.map((c) => c.padStart(col)).join('')}`);
  console.log(`${'database size'.padEnd(30)}${sizes.map((s) => mib(s.bytes).padStart(col)).join('')}`);
  console.log('targets: each p99 ≤ 1.50× its first-size figure; search p99 ≤ 10× post p99');
}

async function main(): Promise<void> {
  console.log(commandLine('bench:scale'));
  console.log(
    `sizes ${SIZES.join(', ')} posts, ${USERS} users, ${REQUESTS} requests per read, c=1, node ${process.version}`,
  );
  const sizes: Seeded[] = [];
  for (const posts of SIZES) sizes.push(await seeded(posts));
  build(path.resolve(__dirname, '..'));
  const token = randomBytes(24).toString('hex');
  const readings: Map<string, Reading>[] = [];
  for (const size of sizes) {
    console.log(`\n${size.posts} posts:`);
    readings.push(await readsAt(size.posts, token));
  }
  report(sizes, readings);
}

runBench(main, () => children.stopAll());
