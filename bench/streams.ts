/**
 * Many streams (issue 47, DESIGN.md §18): `npm run bench:streams`, loopback only, bounded. The
 * whole stack as child processes, one gateway and one users-service (the e2e suite's owned stack,
 * dropped at the end).
 * 1. Opens BENCH_STREAMS (5,000) notification streams through the gateway, MAX_STREAMS_PER_ACCOUNT
 *    per account, BENCH_BATCH (250) at a time, in two halves; prints each process's resident memory
 *    and open files before and after, and its memory per stream (target ≤ 16 KiB a process): as it
 *    grew, and what it holds after a full collection (bench/heap-reading.ts) before, between the
 *    halves and after — the second half's share leaves out what grows once, not a stream (the
 *    young generation's space, which the gateway lets grow to 32 MiB).
 * 2. With all of them open: heartbeats every BENCH_HEARTBEAT_S (5) seconds for BENCH_WATCH_S (20),
 *    and how late each arrived after the one before (target: on time); then BENCH_COMMENTS (200)
 *    comments, 8 in flight, each timed to its reply on the recipient's stream (target p99 ≤ 1 s).
 * BENCH_BASELINE (unset): a git revision whose stack runs first, from a worktree with its own npm
 * ci; a table sets the two side by side.
 * The file limit here is 20,000 a process: a gateway that relays each stream on a connection of its
 * own (before the channel) holds two sockets a stream.
 */
import './owned-stack-env';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { MAX_STREAMS_PER_ACCOUNT } from '@community/contracts';
import { createComment, createPost } from '../e2e/src/flows';
import { startOwnedStack, type OwnedStack } from '../e2e/src/stack/owned-stack';
import { UNLIMITED, World, type Member } from '../e2e/src/world';
import { collectedHeap, type HeapReading } from './heap-reading';
import { percentile } from './measure';
import { checkoutAt, removeCheckout } from './processes';
import { arrival, openStream, summary, type Stream } from './sse';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
const BATCH = Number(process.env.BENCH_BATCH ?? 250);
const HEARTBEAT_S = Number(process.env.BENCH_HEARTBEAT_S ?? 5);
const WATCH_S = Number(process.env.BENCH_WATCH_S ?? 20);
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 200);
const IN_FLIGHT = 8;
const BASELINE = process.env.BENCH_BASELINE;
const root = path.resolve(__dirname, '..');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Reading {
  rssKiB: number;
  files: number;
}
type Name = 'gateway' | 'users';
type Readings = Record<Name, Reading>;

function read(stack: OwnedStack): Readings {
  const one = (name: Name): Reading => {
    const process = stack.services[name];
    return { rssKiB: process.rssKiB() ?? 0, files: readdirSync(`/proc/${process.pid}/fd`).length };
  };
  return { gateway: one('gateway'), users: one('users') };
}

type Held = HeapReading & { rssKiB: number };

/** What each process holds after a full collection: its heap, then its resident memory. */
async function held(stack: OwnedStack): Promise<Record<Name, Held>> {
  const one = async (name: Name): Promise<Held> => {
    const service = stack.services[name];
    const heap = await collectedHeap(service.spec.logFile);
    return { ...heap, rssKiB: service.rssKiB() ?? 0 };
  };
  return { gateway: await one('gateway'), users: await one('users') };
}

/** Members enough for `streams` streams, a few registrations at a time (each hashes a password). */
async function members(world: World, streams: number): Promise<Member[]> {
  const wanted = Math.ceil(streams / MAX_STREAMS_PER_ACCOUNT);
  const made: Member[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (made.length < wanted) made.push(await world.member());
    }),
  );
  return made;
}

/** Opens `count` streams, `BATCH` at a time, each account's up to its cap. */
async function openAll(url: string, accounts: Member[], count: number) {
  const keys = accounts.flatMap((a) => Array<string>(MAX_STREAMS_PER_ACCOUNT).fill(a.key)).slice(0, count);
  const streams: Stream[] = [];
  let refused = 0;
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH).map((key) => openStream(url, key));
    const statuses = await Promise.all(batch.map((s) => s.opened.catch(() => 0)));
    refused += statuses.filter((s) => s !== 200).length;
    streams.push(...batch);
  }
  return { streams, refused };
}

/** How late each heartbeat came after the one before it, in ms, over every stream. */
function lateness(streams: Stream[], from: number, periodMs: number): number[] {
  return streams.flatMap((s) => {
    const beats = s.heartbeats.filter((t) => t >= from);
    return beats.slice(1).map((t, i) => Math.max(0, t - beats[i]! - periodMs));
  });
}

async function replies(world: World, url: string, author: Member, replier: Member) {
  const post = await createPost(world.as(author), await world.category());
  const stream = openStream(url, author.key);
  if ((await stream.opened) !== 200) throw new Error("the recipient's stream did not open");
  const pushed: number[] = [];
  let left = COMMENTS;
  try {
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (left-- > 0) {
          const sent = performance.now();
          const comment = await createComment(world.as(replier), post.id, 'Timed reply');
          pushed.push((await arrival(stream, comment.id)) - sent);
        }
      }),
    );
  } finally {
    stream.close();
  }
  return pushed;
}

function report(label: string, before: Reading, after: Reading, open: number) {
  const perStream = (after.rssKiB - before.rssKiB) / open;
  console.log(
    `  ${label.padEnd(13)} ${(before.rssKiB / 1024).toFixed(0)} → ${(after.rssKiB / 1024).toFixed(0)} MiB, ` +
      `${perStream.toFixed(1)} KiB a stream (target ≤ 16), files ${before.files} → ${after.files}`,
  );
}

/** KiB a stream between two readings after a full collection: resident, of it the heap, external. */
function reportHeld(label: string, from: Held, to: Held, streams: number): number {
  const per = (key: keyof Held) => ((to[key] - from[key]) / streams).toFixed(1);
  console.log(
    `  ${label.padEnd(30)} resident ${per('rssKiB')} KiB a stream (target ≤ 16): ` +
      `JavaScript heap ${per('heapKiB')}, external ${per('externalKiB')}; ` +
      `resident ${(from.rssKiB / 1024).toFixed(0)} → ${(to.rssKiB / 1024).toFixed(0)} MiB`,
  );
  return (to.rssKiB - from.rssKiB) / streams;
}

/** One run's figures for the table: KiB a stream after a collection (all, second half), p99s in ms. */
interface Figures {
  label: string;
  held: Record<Name, [number, number]>;
  heartbeatP99: number;
  replyP99: number;
}

/** One stack (this checkout's, or the baseline's from `tree`), measured and printed. */
async function run(label: string, tree: string | undefined): Promise<Figures> {
  console.log(`\n## ${label}`);
  const stack = await startOwnedStack('bench_streams', {
    root: tree,
    // The inspector, for heap-reading.ts's full collections.
    env: { NOTIFICATION_HEARTBEAT_SECONDS: String(HEARTBEAT_S), NODE_OPTIONS: '--inspect=127.0.0.1:0' },
  });
  let streams: Stream[] = [];
  try {
    const world = new World(stack.baseUrl, stack.admin);
    const url = `${stack.baseUrl}/api/v1/notifications/stream`;
    const [author, replier] = await Promise.all([
      world.member({ plan: UNLIMITED }),
      world.member({ plan: UNLIMITED }),
    ]);
    const started = performance.now();
    const accounts = await members(world, STREAMS);
    console.log(`${accounts.length} members in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    await sleep(2_000);
    const heldBefore = await held(stack);
    const before = read(stack);
    const opening = performance.now();
    const half = Math.floor(STREAMS / 2);
    const split = Math.ceil(half / MAX_STREAMS_PER_ACCOUNT);
    const firstHalf = await openAll(url, accounts.slice(0, split), half);
    const heldHalf = await held(stack);
    const secondHalf = await openAll(url, accounts.slice(split), STREAMS - half);
    streams = [...firstHalf.streams, ...secondHalf.streams];
    const refused = firstHalf.refused + secondHalf.refused;
    const open = streams.length - refused;
    console.log(
      `${open} streams open (${refused} refused) in ${((performance.now() - opening) / 1000).toFixed(1)} s`,
    );
    await sleep(3_000);
    const after = read(stack);
    const heldAfter = await held(stack);
    console.log('resident memory and open files, before → after, as it grew:');
    report('gateway', before.gateway, after.gateway, open);
    report('users-service', before.users, after.users, open);
    console.log('after a full collection in each process:');
    const secondOpen = secondHalf.streams.length - secondHalf.refused;
    const heldPer = (name: Name, process: string): [number, number] => [
      reportHeld(`${process}, all`, heldBefore[name], heldAfter[name], open),
      reportHeld(`${process}, the second half`, heldHalf[name], heldAfter[name], secondOpen),
    ];
    const heldBoth = { gateway: heldPer('gateway', 'gateway'), users: heldPer('users', 'users-service') };

    const watching = performance.now();
    await sleep(WATCH_S * 1000);
    const late = lateness(streams, watching, HEARTBEAT_S * 1000);
    console.log(`heartbeats every ${HEARTBEAT_S} s, lateness over ${WATCH_S} s: ${summary(late)}`);

    const pushed = await replies(world, url, author, replier);
    console.log(`comment → reply on its stream, ${IN_FLIGHT} in flight, all open: ${summary(pushed)}`);
    const end = read(stack);
    console.log(
      `at the end: gateway ${(end.gateway.rssKiB / 1024).toFixed(0)} MiB, users-service ${(end.users.rssKiB / 1024).toFixed(0)} MiB`,
    );
    return { label, held: heldBoth, heartbeatP99: percentile(late, 99), replyP99: percentile(pushed, 99) };
  } finally {
    for (const s of streams) s.close();
    await stack.stop();
  }
}

/** The runs side by side. */
function table(figures: Figures[]): void {
  const kib = ([all, second]: [number, number]) => `${all.toFixed(1)} / ${second.toFixed(1)}`.padStart(13);
  console.log('\nside by side: KiB a stream after a full collection (all / second half), p99 in ms');
  console.log(`  ${'run'.padEnd(24)}       gateway  users-service  heartbeat late  reply`);
  for (const f of figures)
    console.log(
      `  ${f.label.padEnd(24)} ${kib(f.held.gateway)}  ${kib(f.held.users)}  ` +
        `${f.heartbeatP99.toFixed(1).padStart(14)}  ${f.replyP99.toFixed(1).padStart(5)}`,
    );
}

async function main() {
  // The owned stack runs every checkout from source: nothing to build.
  const baselineDir = BASELINE ? checkoutAt(root, BASELINE, { built: false }) : undefined;
  try {
    const figures: Figures[] = [];
    if (baselineDir) figures.push(await run(`baseline ${BASELINE}`, baselineDir));
    figures.push(await run('this checkout', undefined));
    table(figures);
  } finally {
    if (baselineDir) removeCheckout(root, baselineDir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
