/**
 * Notifications (issue #20): `npm run bench:notifications`, loopback only, bounded. The whole stack
 * as child processes (the e2e suite's owned stack: its own database, exchange and Redis prefix,
 * dropped at the end).
 * 1. Latency: a member holds one stream open through the gateway; another member comments on the
 *    member's post BENCH_COMMENTS (500) times, one at a time, then BENCH_COMMENTS more with
 *    BENCH_IN_FLIGHT (8) at once; each timed from just before its POST to the arrival of its reply
 *    notification on the stream (target p99 ≤ 1 s).
 *    The POST's own time to its 201 is printed beside it: a push's p50 should stay within 2× of it.
 * 2. Memory: BENCH_STREAMS (1000; 0 skips this part) streams opened through the gateway (5 per account), the resident
 *    memory of users-service and the gateway before and after, per 1,000 streams.
 */
import './owned-stack-env';
import { MAX_STREAMS_PER_ACCOUNT } from '@community/contracts';
import { createComment, createPost } from '../e2e/src/flows';
import { startOwnedStack } from '../e2e/src/stack/owned-stack';
import { UNLIMITED, World, type Member } from '../e2e/src/world';
import { arrival, openStream, summary, type Stream } from './sse';

const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 500);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const PER_ACCOUNT = MAX_STREAMS_PER_ACCOUNT;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Timings {
  created: number[];
  pushed: number[];
}
const timings = (): Timings => ({ created: [], pushed: [] });

async function latency(world: World, url: string, author: Member, replier: Member, postId: number) {
  const stream = openStream(url, author.key);
  if ((await stream.opened) !== 200) throw new Error('the stream did not open');
  /** Times one comment: its POST to the 201, and its POST to the reply on the stream. */
  const one = async (into: Timings) => {
    const sent = performance.now();
    const comment = await createComment(world.as(replier), postId, 'Timed reply');
    into.created.push(performance.now() - sent);
    into.pushed.push((await arrival(stream, comment.id)) - sent);
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

async function main() {
  const stack = await startOwnedStack('bench_notif');
  try {
    const world = new World(stack.baseUrl, stack.admin);
    const [author, replier] = await Promise.all([
      world.member({ plan: UNLIMITED }),
      world.member({ plan: UNLIMITED }),
    ]);
    const post = await createPost(world.as(author), await world.category());
    const url = `${stack.baseUrl}/api/v1/notifications/stream`;
    console.log(`comment created → reply notification on the recipient's stream, through the gateway:`);
    const { sequential, parallel } = await latency(world, url, author, replier, post.id);
    for (const [label, t] of [
      ['one at a time', sequential],
      [`${IN_FLIGHT} in flight`, parallel],
    ] as const) {
      console.log(`  ${label.padEnd(14)} on the stream ${summary(t.pushed)}`);
      console.log(`  ${''.padEnd(14)} the POST's 201 ${summary(t.created)}`);
    }
    if (STREAMS === 0) return;
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
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
