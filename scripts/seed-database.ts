/**
 * `npm run seed`'s work (DESIGN.md §18, "Data at scale"): members, posts, comments and likes copied
 * into the posts and users schemas of one database through COPY, with every denormalised counter
 * matching the rows, in one transaction: a seed that fails leaves the database as it was.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDb, ensureDatabase, type Sql, type Tx } from '@community/db';
import { migrateSchema } from '@community/service-runtime';
import { SERVICE_SCHEMA as POSTS } from '../posts-service/src/start';
import { SERVICE_SCHEMA as USERS } from '../users-service/src/start';
import { hashPassword } from '../users-service/src/domain/passwords';
import {
  AUTHOR_COLUMNS,
  authorRows,
  COMMENT_COLUMNS,
  COMMENT_LIKE_COLUMNS,
  commentLikeRows,
  commentRows,
  LIKE_COLUMNS,
  POST_COLUMNS,
  postLikeRows,
  postRows,
  SeedTally,
  USER_COLUMNS,
  userRows,
  type SeedPlan,
} from './seed-rows';
import { VOCABULARY } from './seed-words';

export interface SeedOptions {
  databaseUrl: string;
  posts: number;
  users: number;
  /** Add to a database that already holds posts (refused otherwise). */
  append?: boolean;
  log?: (line: string) => void;
}

export interface SeedResult {
  seconds: number;
  databaseBytes: number;
  posts: number;
  users: number;
  comments: number;
  likes: number;
}

/** The password every seeded member signs in with (one hash, made once, for all of them). */
export const SEED_PASSWORD = 'seeded member password';

/** The tables whose secondary indexes are dropped while the rows are copied, then built once. */
const REBUILT_TABLES = ['posts', 'comments', 'post_likes', 'comment_likes'];
const DAY = 24 * 3600 * 1000;

export class DatabaseNotEmptyError extends Error {}

/** Migrates both schemas as the services do, then copies the rows in. */
export async function seedDatabase(options: SeedOptions): Promise<SeedResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  await ensureDatabase(options.databaseUrl);
  for (const service of [POSTS, USERS]) {
    const applied = await migrateSchema(options.databaseUrl, service.schema, service.migrationsDir);
    if (applied.length) log(`${service.service}: ${applied.length} migrations applied`);
  }
  const sql = createDb(options.databaseUrl, { schema: POSTS.schema, max: 1 });
  try {
    const plan = await planSeed(sql, options);
    const passwordHash = await hashPassword(SEED_PASSWORD);
    const tally = new SeedTally(plan.users);
    await sql.begin((tx) => copyAll(tx, plan, tally, passwordHash, log, started));
    log('vacuum analyze…');
    for (const table of REBUILT_TABLES) await sql`vacuum analyze ${sql(table)}`;
    await sql`vacuum analyze ${sql(USERS.schema)}.users`;
    const [{ bytes }] =
      (await sql`select pg_database_size(current_database())::float8 as bytes`) as unknown as [
        { bytes: number },
      ];
    return {
      seconds: (performance.now() - started) / 1000,
      databaseBytes: bytes,
      posts: plan.posts,
      users: plan.users,
      comments: tally.comments,
      likes: tally.likes,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Where the new rows go: after every id in use, into the categories there are (made when none). */
async function planSeed(sql: Sql, { posts, users, append }: SeedOptions): Promise<SeedPlan> {
  const [held] = await sql<{ posts: number; lastPost: number; lastComment: number }[]>`
    select (select count(*) from posts)::int as posts, (select coalesce(max(id), 0) from posts)::int as last_post,
           (select coalesce(max(id), 0) from comments)::int as last_comment`;
  if (held!.posts > 0 && !append)
    throw new DatabaseNotEmptyError(
      `the database already holds ${held!.posts} posts: refusing to seed it (--append adds to them)`,
    );
  const [{ lastUser }] =
    (await sql`select coalesce(max(id), 0)::int as last_user from ${sql(USERS.schema)}.users`) as unknown as [
      { lastUser: number },
    ];
  const [{ count }] = (await sql`select count(*)::int as count from categories`) as unknown as [
    { count: number },
  ];
  if (count === 0) {
    const names = VOCABULARY.slice(60, 84).map((w) => w[0]!.toUpperCase() + w.slice(1));
    await sql`insert into categories (name, slug) select n, lower(n) || '-' || i from unnest(${names}::text[]) with ordinality as c(n, i)`;
  }
  const categories = await sql<{ id: number }[]>`select id from categories order by id`;
  return {
    firstPostId: held!.lastPost + 1,
    posts,
    firstCommentId: held!.lastComment + 1,
    firstUserId: lastUser + 1,
    users,
    categoryIds: categories.map((c) => c.id),
    end: Date.now(),
    // Three years of posts, whatever their number: a larger forum is a busier one.
    span: 3 * 365 * DAY,
  };
}

async function copy(tx: Tx, table: string, columns: string, rows: Iterable<string>): Promise<void> {
  const writable = await tx.unsafe(`copy ${table} (${columns}) from stdin`).writable();
  await pipeline(Readable.from(rows), writable);
}

async function copyAll(
  tx: Tx,
  plan: SeedPlan,
  tally: SeedTally,
  passwordHash: string,
  log: (line: string) => void,
  started: number,
): Promise<void> {
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  // Building an index once over all rows is several times faster than growing it row by row.
  await tx`set local maintenance_work_mem = '1GB'`;
  const indexes = await tx<{ name: string; definition: string }[]>`
    select indexname as name, indexdef as definition from pg_indexes i
    where schemaname = ${POSTS.schema} and tablename = any(${REBUILT_TABLES})
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`;
  for (const index of indexes) await tx`drop index ${tx(index.name)}`;
  log(`copying ${plan.posts} posts (${indexes.length} indexes dropped until the end)…`);
  const t0 = performance.now();
  await copy(
    tx,
    'posts',
    POST_COLUMNS,
    postRows(plan, tally, (done) => {
      if (done % Math.max(1, Math.floor(plan.posts / 10)) !== 0) return;
      const rate = done / ((performance.now() - t0) / 1000);
      log(`  ${done} posts (${Math.round(rate)}/s, ${elapsed()})`);
    }),
  );
  log(`copying comments… (${elapsed()})`);
  await copy(tx, 'comments', COMMENT_COLUMNS, commentRows(plan, tally));
  log(`  ${tally.comments} comments; copying likes… (${elapsed()})`);
  await copy(tx, 'post_likes', LIKE_COLUMNS, postLikeRows(plan, tally));
  await copy(tx, 'comment_likes', COMMENT_LIKE_COLUMNS, commentLikeRows(plan, tally));
  log(
    `  ${tally.likes} post likes, ${tally.commentLikes} comment likes; copying ${plan.users} members… (${elapsed()})`,
  );
  await copy(tx, `${USERS.schema}.users`, USER_COLUMNS, userRows(plan, tally, passwordHash));
  await copy(tx, 'authors', AUTHOR_COLUMNS, authorRows(plan));
  await counters(tx, plan, tally);
  log(`building ${indexes.length} indexes… (${elapsed()})`);
  for (const index of indexes) {
    const t = performance.now();
    await tx.unsafe(index.definition);
    log(`  ${index.name} ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  log(`committing (${elapsed()})`);
}

/** The counters kept beside the rows: categories, tags, what each member received, badges, id sequences. */
async function counters(tx: Tx, plan: SeedPlan, tally: SeedTally): Promise<void> {
  const users = tx(USERS.schema);
  const [ids, counts] = [[...tally.categoryPosts.keys()], [...tally.categoryPosts.values()]];
  await tx`
    update categories c set post_count = c.post_count + n.count
    from unnest(${ids}::int[], ${counts}::int[]) as n(id, count) where c.id = n.id`;
  const [tags, tagCounts] = [[...tally.tagPosts.keys()], [...tally.tagPosts.values()]];
  await tx`
    insert into tags (name, post_count) select * from unnest(${tags}::text[], ${tagCounts}::int[])
    on conflict (name) do update set post_count = tags.post_count + excluded.post_count`;
  // Each (post, liker) once, as users-service records the likes its badges count.
  await tx`
    insert into ${users}.received_likes (post_id, liker_id, author_id)
    select l.post_id, l.user_id, p.author_id from post_likes l join posts p on p.id = l.post_id
    where l.post_id >= ${plan.firstPostId}`;
  await tx`
    insert into ${users}.user_badges (user_id, badge_id)
    select u.id, b.id from ${users}.users u
    join ${users}.badges b on (b.id = 1 and u.posts_created >= 1) or (b.id = 2 and u.comments_created >= 10)
                            or (b.id = 3 and u.likes_ever_received >= 10) or (b.id = 4 and u.likes_ever_received >= 100)
    where u.id >= ${plan.firstUserId}`;
  for (const [table, schema] of [
    ['posts', POSTS.schema],
    ['comments', POSTS.schema],
    ['users', USERS.schema],
  ] as const) {
    const name = `${schema}.${table}`;
    await tx`select setval(pg_get_serial_sequence(${name}, 'id'), (select max(id) from ${tx(schema)}.${tx(table)}))`;
  }
}
