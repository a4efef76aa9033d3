/**
 * Writes during an upgrade's index build (DESIGN.md §18, issue 47): `npm run bench:upgrade-writes`
 * (loopback only, bounded). On a database `npm run bench:scale` seeded (BENCH_DATABASE_URL, default
 * its million-post one) it drops migration 0011's index and builds it again twice — in a
 * transaction, as the migrator did before, and through libs/db's migrator as it is now — while one
 * writer updates a random post every BENCH_WRITE_EVERY_MS (20). Each build's time and the writes'
 * p50 / max during it are printed. The index is left built, its migration recorded.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Sql } from '@community/db';
import { migrateSchema } from '@community/service-runtime';
import { SERVICE_SCHEMA as POSTS } from '../posts-service/src/start';
import { intEnv } from './infra';
import { percentile } from './measure';

const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/community_bench_scale_1000000';
const WRITE_EVERY_MS = intEnv('BENCH_WRITE_EVERY_MS', 20);
const MIGRATION = '0011_relevance_candidates.sql';
const INDEX = 'posts_live_search_idx';

/** Updates a random post every WRITE_EVERY_MS until `stop` and answers each write's milliseconds. */
async function writer(sql: Sql, posts: number, stop: { done: boolean }): Promise<number[]> {
  const took: number[] = [];
  while (!stop.done) {
    const id = 1 + Math.floor(Math.random() * posts);
    const started = performance.now();
    await sql`update posts set likes = likes where id = ${id}`;
    took.push(performance.now() - started);
    await sleep(WRITE_EVERY_MS);
  }
  return took;
}

async function during(sql: Sql, posts: number, label: string, build: () => Promise<unknown>): Promise<void> {
  await sql`drop index if exists ${sql(INDEX)}`;
  await sql`delete from schema_migrations where name = ${MIGRATION}`;
  const stop = { done: false };
  const writes = writer(sql, posts, stop);
  await sleep(500);
  const started = performance.now();
  await build();
  const seconds = (performance.now() - started) / 1000;
  stop.done = true;
  const took = await writes;
  console.log(
    `${label.padEnd(28)} build ${seconds.toFixed(1).padStart(6)} s   writes ${String(took.length).padStart(5)}` +
      `   p50 ${percentile(took, 50).toFixed(1).padStart(7)} ms   max ${Math.max(...took)
        .toFixed(1)
        .padStart(8)} ms`,
  );
}

async function main(): Promise<void> {
  const sql = createDb(DATABASE_URL, { schema: POSTS.schema, max: 2 });
  try {
    const [{ posts }] = (await sql`select count(*)::int as posts from posts`) as unknown as [
      { posts: number },
    ];
    console.log(`command: npm run bench:upgrade-writes (${new Date().toISOString()})`);
    console.log(
      `${posts} posts in ${new URL(DATABASE_URL).pathname.slice(1)}, a write every ${WRITE_EVERY_MS} ms`,
    );
    const file = readFileSync(path.join(POSTS.migrationsDir, MIGRATION), 'utf8');
    const inTransaction = file.replace('create index concurrently if not exists', 'create index');
    await during(sql, posts, 'in a transaction (before)', () =>
      sql.begin(async (tx) => {
        await tx.unsafe(inTransaction);
        await tx`insert into schema_migrations (name) values (${MIGRATION})`;
      }),
    );
    await during(sql, posts, 'concurrently (the migrator)', () =>
      migrateSchema(DATABASE_URL, POSTS.schema, POSTS.migrationsDir),
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
