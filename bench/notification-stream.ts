/**
 * Notifications (issue #20): `npm run bench:notifications`, loopback only, bounded. The whole stack
 * as child processes (the e2e suite's owned stack: its own database, exchange and Redis prefix,
 * dropped at the end).
 * 1. Latency: a member holds one stream open through the gateway; another member comments on the
 *    member's post BENCH_COMMENTS (500) times, one at a time, then BENCH_COMMENTS more with
 *    BENCH_IN_FLIGHT (8) at once; each timed from just before its POST to the arrival of its reply
 *    notification on the stream (target p99 ≤ 1 s).
 *    The POST's own time to its 201 is printed beside it: a push's p50 should stay within 2× of it;
 *    and where a push's time goes, one at a time, from the times its rows were written (each
 *    transaction's start, PostgreSQL's now()) to its arrival.
 * 2. Memory: BENCH_STREAMS (1000; 0 skips this part) streams opened through the gateway (5 per account), the resident
 *    memory of users-service and the gateway before and after, per 1,000 streams.
 * BENCH_BASELINE (unset): a git revision whose stack runs beside this checkout's (a worktree with its
 * own npm ci), BENCH_ROUNDS (1) times, every other round in reverse order; a table sets them side by
 * side. The memory part runs on this checkout only, after the last round.
 */
import './owned-stack-env';
import path from 'node:path';
import { MAX_STREAMS_PER_ACCOUNT } from '@community/contracts';
import { createDb } from '@community/db';
import { testInfra } from '@community/test-harness';
import { createComment, createPost } from '../e2e/src/flows';
import { startOwnedStack } from '../e2e/src/stack/owned-stack';
import { UNLIMITED, World, type Member } from '../e2e/src/world';
import { percentile } from './measure';
import { checkoutAt, removeCheckout } from './processes';
import { arrival, openStream, summary, type Stream } from './sse';

const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 500);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const PER_ACCOUNT = MAX_STREAMS_PER_ACCOUNT;
const BASELINE = process.env.BENCH_BASELINE;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const root = path.resolve(__dirname, '..');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Timings {
  created: number[];
  pushed: number[];
  /** Each comment: its id, when its POST was sent and when its reply arrived (epoch ms). */
  comments: { id: number; sent: number; arrived: number }[];
}
const timings = (): Timings => ({ created: [], pushed: [], comments: [] });
/** Epoch milliseconds with sub-millisecond resolution: comparable with PostgreSQL's now() on this host. */
const epoch = (at: number) => performance.timeOrigin + at;

async function latency(world: World, url: string, author: Member, replier: Member, postId: number) {
  const stream = openStream(url, author.key);
  if ((await stream.opened) !== 200) throw new Error('the stream did not open');
  /** Times one comment: its POST to the 201, and its POST to the reply on the stream. */
  const one = async (into: Timings) => {
    const sent = performance.now();
    const comment = await createComment(world.as(replier), postId, 'Timed reply');
    into.created.push(performance.now() - sent);
    const arrived = await arrival(stream, comment.id);
    into.pushed.push(arrived - sent);
    into.comments.push({ id: comment.id, sent: epoch(sent), arrived: epoch(arrived) });
  };
  try {
    const warmUp = timings();
    for (let i = 0; i < 10; i++) await one(warmUp);
    const sequential = timings();
    for (let i = 0; i < COMMENTS; i++) await one(sequential);
    // The first burst also opens the services' further database connections (their pools grow on
    // demand, ~200 ms here): a warm-up of its own, as the sequential part has.
    await inFlight(3 * IN_FLIGHT, () => one(warmUp));
    const parallel = timings();
    await inFlight(COMMENTS, () => one(parallel));
    return { sequential, parallel };
  } finally {
    stream.close();
  }
}

/** Runs `work` `count` times, IN_FLIGHT at once. */
async function inFlight(count: number, work: () => Promise<void>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await work();
    }),
  );
}

/**
 * Where a push's time went, one at a time: the comment's transaction, posts-service's relay, the
 * notification's transaction in users-service, users-service's relay, and the stream. Each row's
 * time is its transaction's start, so a commit's own time shows in the stage after it.
 */
async function stages(databaseName: string, { comments }: Timings): Promise<void> {
  const url = new URL(testInfra().pgUrl);
  url.pathname = `/${databaseName}`;
  const sql = createDb(url.toString(), { schema: 'public', max: 1 });
  try {
    const ms = (column: string) => sql.unsafe(`extract(epoch from ${column})::float8 * 1000`);
    const rows = await sql<
      { id: number; written: number; relayed: number; notified: number; announced: number }[]
    >`
      select (p.payload->'data'->>'id')::int as id, ${ms('p.created_at')} as written,
        ${ms('p.published_at')} as relayed, ${ms('n.created_at')} as notified, ${ms('u.published_at')} as announced
      from posts.outbox p
      join users.notifications n on n.subject_type = 'comment' and n.subject_id = (p.payload->'data'->>'id')::int
      join users.outbox u on u.event = 'notification.created'
        and (u.payload->'data'->'notification'->>'id')::int = n.id
      where p.event = 'content.created' and p.payload->'data'->>'type' = 'comment'
        and (p.payload->'data'->>'id')::int = any(${comments.map((c) => c.id)})`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const joined = comments.flatMap((c) => (byId.has(c.id) ? [{ ...c, ...byId.get(c.id)! }] : []));
    console.log(
      `  where a push's time went, one at a time (n=${joined.length}; each row's transaction start):`,
    );
    const stage = (label: string, f: (r: (typeof joined)[number]) => number) =>
      console.log(`    ${label.padEnd(44)} ${summary(joined.map(f))}`);
    stage('POST sent → comment transaction', (r) => r.written - r.sent);
    stage('comment transaction → posts relay', (r) => r.relayed - r.written);
    stage('posts relay → notification transaction', (r) => r.notified - r.relayed);
    stage('notification transaction → users relay', (r) => r.announced - r.notified);
    stage('users relay → on the stream', (r) => r.arrived - r.announced);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function memory(world: World, url: string, rss: () => { users: number; gateway: number }) {
  // A few at a time: each registration hashes a password, and 200 at once would be a load test.
  const accounts: Member[] = [];
  const wanted = Math.ceil(STREAMS / PER_ACCOUNT);
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (accounts.length < wanted) accounts.push(await world.member());
    }),
  );
  await sleep(2_000);
  const before = rss();
  const streams: Stream[] = [];
  for (const account of accounts)
    for (let i = 0; i < PER_ACCOUNT && streams.length < STREAMS; i++)
      streams.push(openStream(url, account.key));
  const statuses = await Promise.all(streams.map((s) => s.opened));
  const open = statuses.filter((s) => s === 200).length;
  await sleep(3_000);
  const after = rss();
  for (const s of streams) s.close();
  return { open, refused: statuses.length - open, before, after };
}

/** One stack (this checkout's, or the baseline's from `tree`): latency, stages, and memory if asked. */
async function run(label: string, tree: string | undefined, withMemory: boolean): Promise<Figures> {
  const stack = await startOwnedStack('bench_notif', { root: tree });
  try {
    const world = new World(stack.baseUrl, stack.admin);
    const [author, replier] = await Promise.all([
      world.member({ plan: UNLIMITED }),
      world.member({ plan: UNLIMITED }),
    ]);
    const post = await createPost(world.as(author), await world.category());
    const url = `${stack.baseUrl}/api/v1/notifications/stream`;
    console.log(
      `\n## ${label}: comment created → reply notification on the recipient's stream, through the gateway:`,
    );
    const { sequential, parallel } = await latency(world, url, author, replier, post.id);
    for (const [name, t] of [
      ['one at a time', sequential],
      [`${IN_FLIGHT} in flight`, parallel],
    ] as const) {
      console.log(`  ${name.padEnd(14)} on the stream ${summary(t.pushed)}`);
      console.log(`  ${''.padEnd(14)} the POST's 201 ${summary(t.created)}`);
    }
    await stages(stack.databaseName, sequential);
    if (withMemory) await memoryReport(world, url, stack);
    return { label, sequential, parallel };
  } finally {
    await stack.stop();
  }
}

interface Figures {
  label: string;
  sequential: Timings;
  parallel: Timings;
}

async function memoryReport(
  world: World,
  url: string,
  stack: Awaited<ReturnType<typeof startOwnedStack>>,
): Promise<void> {
  const rss = () => ({
    users: stack.services.users.rssKiB() ?? 0,
    gateway: stack.services.gateway.rssKiB() ?? 0,
  });
  const m = await memory(world, url, rss);
  const per1000 = (kib: number) => `${(((kib / m.open) * 1000) / 1024).toFixed(1)} MiB`;
  console.log(`${m.open} streams open (${m.refused} refused), resident memory before → after:`);
  console.log(
    `  users-service ${(m.before.users / 1024).toFixed(0)} → ${(m.after.users / 1024).toFixed(0)} MiB (${per1000(m.after.users - m.before.users)} per 1,000 streams)`,
  );
  console.log(
    `  gateway       ${(m.before.gateway / 1024).toFixed(0)} → ${(m.after.gateway / 1024).toFixed(0)} MiB (${per1000(m.after.gateway - m.before.gateway)} per 1,000 streams)`,
  );
}

/** Every run side by side: the push against its POST one at a time, and the p99s with 8 in flight. */
function report(figures: Figures[]): void {
  const p = percentile;
  console.log(`\nside by side (ms):`);
  console.log(
    `  ${'run'.padEnd(26)} push p50  POST p50  push ÷ POST   ${IN_FLIGHT} in flight: push p99  POST p99`,
  );
  for (const { label, sequential: s, parallel: f } of figures) {
    const ratio = p(s.pushed, 50) / p(s.created, 50);
    console.log(
      `  ${label.padEnd(26)} ${p(s.pushed, 50).toFixed(1).padStart(8)}  ${p(s.created, 50).toFixed(1).padStart(8)}  ` +
        `${ratio.toFixed(2).padStart(10)}×   ${p(f.pushed, 99).toFixed(1).padStart(19)}  ${p(f.created, 99).toFixed(1).padStart(8)}`,
    );
  }
}

async function main() {
  // The owned stack runs every checkout from source: nothing to build.
  const baselineDir = BASELINE ? checkoutAt(root, BASELINE, { built: false }) : undefined;
  try {
    const figures: Figures[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const runs: [string, string | undefined][] = [[`this checkout (${round})`, undefined]];
      if (baselineDir) runs.unshift([`baseline ${BASELINE} (${round})`, baselineDir]);
      if (round % 2 === 0) runs.reverse();
      for (const [label, tree] of runs) {
        const memoryToo = STREAMS > 0 && round === ROUNDS && tree === undefined;
        figures.push(await run(label, tree, memoryToo));
      }
    }
    report(figures);
  } finally {
    if (baselineDir) removeCheckout(root, baselineDir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
