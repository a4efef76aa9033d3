/**
 * Latency of the post list with 100,000 posts: `npm run bench:posts` (loopback only, bounded).
 * Seeds a dedicated database once (`community_bench`, reused on later runs), starts posts-service
 * in-process and measures each query shape sequentially (latency) and with 8 in flight (throughput).
 *
 * `page=200&limit=100` against the same position by cursor (DESIGN.md §10) shows what a deep page
 * costs each way; page 1 beside them is the target (the cursor page's p99 within 1.5× of it).
 *
 * Env: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/community_bench),
 *      BENCH_POSTS (100000), BENCH_REQUESTS (300 per scenario).
 */
import { randomBytes } from 'node:crypto';
import { encodeCursor } from '@community/http-kit';
import { createDb, ensureDatabase, type Sql } from '@community/db';
import { parsePostsConfig } from '../posts-service/src/config';
import { SERVICE_SCHEMA, start } from '../posts-service/src/start';
import { measure } from './measure';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/community_bench';
const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const CATEGORIES = 20;

async function seed(sql: Sql): Promise<void> {
  const [{ n }] = (await sql`select count(*)::int as n from posts`) as unknown as [{ n: number }];
  if (n >= POSTS) return;
  console.log(`seeding ${POSTS} posts…`);
  const started = performance.now();
  await sql`truncate posts, categories, comments, post_likes, comment_likes, outbox restart identity cascade`;
  await sql`
    insert into categories (name, slug)
    select 'Category ' || i, 'category-' || i from generate_series(1, ${CATEGORIES}) i`;
  await sql`
    insert into posts (title, slug, content, author_id, category_id, tags, views, likes, replies, created_at, updated_at)
    select 'Post number ' || i, 'post-number-' || i,
           repeat('Lorem ipsum dolor sit amet. ', 20),
           1 + (i % 5000), 1 + (i % ${CATEGORIES}),
           array['tag-' || (i % 50), 'tag-' || (i % 7)],
           (random() * 5000)::int, (random() * random() * 500)::int, (random() * 40)::int,
           now() - random() * interval '180 days', now()
    from generate_series(1, ${POSTS}) i`;
  await sql`
    update categories c set post_count = (select count(*) from posts p where p.category_id = c.id and p.deleted_at is null)`;
  await sql`vacuum analyze posts`;
  console.log(`seeded in ${Math.round(performance.now() - started)} ms`);
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const token = randomBytes(24).toString('hex');
  const config = parsePostsConfig({
    DATABASE_URL,
    INTERNAL_TOKEN: token,
    POSTS_SERVICE_PORT: '0',
    LOG_LEVEL: 'warn',
    AMQP_EXCHANGE: 'bench.events',
  });
  const service = await start(config);
  const sql = createDb(DATABASE_URL, { schema: SERVICE_SCHEMA.schema, max: 2 });
  try {
    await seed(sql);
    // The cursor a walk holds after 19,900 posts: the same position as page 200 of 100.
    const [deep] = await sql<{ id: number }[]>`
      select id from posts where deleted_at is null order by created_at desc, id desc offset 19899 limit 1`;
    const cursor = encodeCursor({ name: 'posts', scope: JSON.stringify([null, null, null]) }, deep!.id);
    const scenarios = [
      '/posts?limit=100',
      `/posts?limit=100&cursor=${cursor}`,
      '/posts',
      '/posts?sort=popular',
      '/posts?sort=trending',
      '/posts?category=7',
      '/posts?category=7&sort=trending',
      '/posts?category=7&sort=popular',
      '/posts?tag=tag-3',
      '/posts?author=42',
      '/posts?page=200&limit=100',
      '/posts/5000',
    ];
    console.log(`\n${POSTS} posts, ${REQUESTS} requests per scenario, node ${process.version}`);
    console.log('scenario'.padEnd(36), 'c=1 p50 ms', ' p99 ms', ' | c=8 p50 ms', ' p99 ms', '   req/s');
    for (const path of scenarios) {
      await measure(service.url, token, path, 4, REQUESTS); // warm-up
      const one = await measure(service.url, token, path, 1, REQUESTS);
      const eight = await measure(service.url, token, path, 8, REQUESTS);
      const label = path.replace(/cursor=[^&]+/, 'cursor=<after 19,900>');
      console.log(
        label.padEnd(36),
        one.p50.toFixed(1).padStart(10),
        one.p99.toFixed(1).padStart(7),
        ' |',
        eight.p50.toFixed(1).padStart(10),
        eight.p99.toFixed(1).padStart(7),
        eight.rps.toFixed(0).padStart(8),
      );
    }
  } finally {
    await sql.end();
    await service.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
