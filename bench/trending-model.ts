/**
 * Trending at ten million posts, on a model (`npm run bench:trending-model`, loopback only, bounded).
 * A seeded forum of ten million posts needs about 80 GB here (bench/RESULTS.md), more than this
 * machine's disk holds; trending's ids read only a post's time and three counters. So this builds,
 * in a database of its own, a table of just those columns with `npm run seed`'s draws (one post in
 * two hundred viral, likes, replies and views as scripts/seed-rows.ts draws them, three years of
 * posts ending an hour ago) at each size, with the indexes the read uses, and times
 * `trendingPageIds` (page 1, c=1) on each, checking its ids against the full sort.
 *
 * BENCH_COMPARE_ROOT (unset): another checkout (a worktree) whose `trendingPageIds` is timed first,
 * before migration 0012's index exists, so before and after run on the same rows in one run.
 * Env: BENCH_MODEL_SIZES (100000,1000000,10000000), BENCH_REQUESTS (200 a size and checkout).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createDb, ensureDatabase, type Sql } from '@community/db';
import { dropBenchDatabase, intEnv } from './infra';
import { percentile } from './measure';
import { trendingScore, whereLive } from '../posts-service/src/db/posts.repository';
import { trendingPageIds } from '../posts-service/src/db/trending.repository';

type PageIds = typeof trendingPageIds;

const SIZES = (process.env.BENCH_MODEL_SIZES ?? '100000,1000000,10000000').split(',').map(Number);
if (!SIZES.every((n) => Number.isInteger(n) && n > 0))
  throw new Error('BENCH_MODEL_SIZES must be positive integers, e.g. 100000,10000000');
const REQUESTS = intEnv('BENCH_REQUESTS', 200);
const COMPARE_ROOT = process.env.BENCH_COMPARE_ROOT;
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/community_bench_trending_model';
const MIGRATION = path.resolve(__dirname, '../posts-service/src/db/migrations/0012_trending_window.sql');

async function model(admin: Sql, posts: number): Promise<Sql> {
  const schema = `model_${posts}`;
  await admin.unsafe(`create schema ${schema}`);
  const sql = createDb(DATABASE_URL, { schema, max: 1 });
  await sql`
    create table posts (id int primary key, created_at timestamptz not null, likes int not null,
      replies int not null, views int not null, deleted_at timestamptz, is_hidden boolean not null default false)`;
  await sql`select setseed(0.42)`;
  await sql`
    insert into posts (id, created_at, likes, replies, views)
    select i, now() - interval '1 hour' - interval '1095 days' * (1 - (i - 1 + random()) / ${posts}),
           likes, replies, likes * (5 + floor(random() * 26))::int + floor(random() * 51)::int
    from (
      select i, floor(-ln(1 - random()) * 2)::int + case when viral then 20 + floor(random() * 281)::int else 0 end as likes,
             floor(-ln(1 - random()) * 0.7)::int + case when viral then 5 + floor(random() * 36)::int else 0 end as replies
      from (select i, random() < 0.005 as viral from generate_series(1, ${posts}) i) drawn
    ) counted`;
  // As migrations 0001 and 0002 define them.
  await sql`create index posts_latest_idx on posts (created_at desc, id desc) where deleted_at is null`;
  await sql`
    create index posts_engagement_idx on posts
      (((likes + 2 * replies)::float8 + views / 10.0::float8) desc, id desc) where deleted_at is null`;
  await sql`vacuum analyze posts`;
  return sql;
}

async function time(
  sql: Sql,
  pageIds: PageIds,
  now: Date,
): Promise<{ p50: number; p99: number; exact: boolean }> {
  for (let i = 0; i < 20; i++) await pageIds(sql, {}, 20, 0, now);
  const took: number[] = [];
  let ids: number[] | null = null;
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    ids = await pageIds(sql, {}, 20, 0, now);
    took.push(performance.now() - started);
  }
  const full = await sql<{ id: number }[]>`
    select p.id from posts p where ${whereLive(sql, {})}
    order by ${trendingScore(sql, now)} desc, p.id desc limit 20`;
  const exact = JSON.stringify(ids) === JSON.stringify(full.map((row) => row.id));
  return { p50: percentile(took, 50), p99: percentile(took, 99), exact };
}

async function main(): Promise<void> {
  const checkouts: [string, PageIds][] = [];
  if (COMPARE_ROOT) {
    const other = path.resolve(COMPARE_ROOT, 'posts-service/src/db/trending.repository.ts');
    checkouts.push([
      path.basename(COMPARE_ROOT),
      ((await import(other)) as { trendingPageIds: PageIds }).trendingPageIds,
    ]);
  }
  checkouts.push(['this checkout', trendingPageIds]);
  console.log(`sizes ${SIZES.join(', ')}, ${REQUESTS} requests a size, c=1, trending page 1 ids`);

  await dropBenchDatabase(DATABASE_URL);
  await ensureDatabase(DATABASE_URL);
  const admin = createDb(DATABASE_URL, { schema: 'public', max: 1 });
  const rows: string[] = [];
  try {
    for (const posts of SIZES) {
      const started = performance.now();
      const sql = await model(admin, posts);
      console.log(`model of ${posts} posts built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      const now = new Date();
      for (const [name, pageIds] of checkouts) {
        // The checkout compared with runs before this one's index exists, as it ran before it.
        if (name === 'this checkout') await sql.unsafe(fs.readFileSync(MIGRATION, 'utf8'));
        const { p50, p99, exact } = await time(sql, pageIds, now);
        rows.push(
          `${String(posts).padStart(9)}  ${name.padEnd(16)} p50 ${p50.toFixed(2).padStart(6)} ms  p99 ${p99.toFixed(2).padStart(6)} ms  ${exact ? 'exact' : 'NOT THE FULL SORT'}`,
        );
        console.log(rows.at(-1));
      }
      await sql.end();
    }
  } finally {
    await admin.end();
    await dropBenchDatabase(DATABASE_URL);
  }
  console.log(`\n${rows.join('\n')}`);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
