import { waitFor } from '@community/test-harness';
import { createPost, subscribe } from '../flows';
import type { ServiceName, ServiceProcess } from '../stack/service-process';
import type { OwnedStack } from '../stack/owned-stack';
import type { Target } from '../target';
import { UNLIMITED } from '../world';
import { drawOperation, expectedStatus, type LoadMember, type LoadWorld } from './mix';

export interface LoadOptions {
  /** Length of the measured phase. */
  seconds: number;
  /** Requests per second the clients aim at, all together (a ceiling: they wait, never burst). */
  rate: number;
  /** Clients, each with one request at a time. */
  clients: number;
  /** Unmeasured warm-up before the measured phase (JIT, pools, caches). */
  warmupSeconds: number;
}

export interface OpReport {
  count: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<number, number>;
}

export interface LoadReport {
  seconds: number;
  requests: number;
  rps: number;
  /** 5xx answers and requests that got no answer (network error or 15 s timeout). */
  unexpected5xx: number;
  noAnswer: number;
  /** Answers other than the mix's expected ones, 5xx included. */
  unexpected: number;
  overall: OpReport;
  ops: Record<string, OpReport>;
  /** KiB, read from /proc/<pid>/status: idle before the warm-up, at the start and end of the measured phase, peak. */
  rss: Record<ServiceName, { idle: number; start: number; end: number; peak: number }>;
  /** Every post of the run (seeded, warm-up, measured) and how many reached the webhook receiver. */
  webhooks: { posts: number; delivered: number; catchUpMs: number };
}

interface Sample {
  op: string;
  status: number;
  ms: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function summarise(samples: Sample[]): OpReport {
  const times = samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses: Record<number, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    count: samples.length,
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    max: round(times.at(-1) ?? 0),
    statuses,
  };
}

async function seed(target: Target, clients: number): Promise<LoadWorld> {
  const { world } = target;
  const categoryId = await world.category();
  const watcher = await world.member({ plan: UNLIMITED });
  await subscribe(world.as(watcher), target.receiver, 'load', ['post.created']);
  const members = [];
  for (let i = 0; i < Math.min(clients, 6); i++) {
    const member = await world.member({ plan: UNLIMITED });
    members.push({ id: member.id, call: world.as(member), own: [] as number[] });
  }
  const postIds: number[] = [];
  for (const member of members) {
    for (let i = 0; i < 5; i++) {
      const id = (await createPost(member.call, categoryId)).id as number;
      postIds.push(id);
      member.own.push(id);
    }
  }
  return { members, categoryId, postIds };
}

/** Mixed reads and writes at a bounded rate against the owned stack, with per-process memory. */
export async function runLoad(
  target: Target & { owned: OwnedStack },
  opts: LoadOptions,
): Promise<LoadReport> {
  const world = await seed(target, opts.clients);
  const memory = sampleMemory(Object.values(target.owned.services));
  const idle = memory.read();
  await runPhase(world, opts, opts.warmupSeconds, null);
  const start = memory.read();
  const samples: Sample[] = [];
  const elapsed = await runPhase(world, opts, opts.seconds, samples);
  const end = memory.read();
  memory.stop();
  const webhooks = await catchUp(target, world.postIds);
  return { ...requestReport(samples, elapsed), rss: memory.report(idle, start, end), webhooks };
}

type Rss = Record<ServiceName, number>;

/** Each process's RSS when read, and its peak over readings every 500 ms until `stop()`. */
function sampleMemory(services: ServiceProcess[]) {
  const read = () => Object.fromEntries(services.map((s) => [s.name, s.rssKiB() ?? 0])) as Rss;
  const peak = read();
  const sampler = setInterval(() => {
    for (const [name, kib] of Object.entries(read()) as [ServiceName, number][]) {
      peak[name] = Math.max(peak[name], kib);
    }
  }, 500);
  const report = (idle: Rss, start: Rss, end: Rss) =>
    Object.fromEntries(
      services.map(({ name }) => [
        name,
        { idle: idle[name], start: start[name], end: end[name], peak: Math.max(peak[name], end[name]) },
      ]),
    ) as LoadReport['rss'];
  return { read, report, stop: () => clearInterval(sampler) };
}

/**
 * Runs `opts.clients` clients for `seconds`, recording each answer in `samples` (null: a warm-up),
 * and returns the seconds it took.
 */
async function runPhase(
  world: LoadWorld,
  opts: LoadOptions,
  seconds: number,
  samples: Sample[] | null,
): Promise<number> {
  const started = performance.now();
  const end = started + seconds * 1000;
  const interval = 1000 / opts.rate;
  let issued = 0;
  // One schedule for every client: each takes the next slot, so together they never exceed the rate.
  const nextDue = () => {
    const due = started + issued++ * interval;
    return due < end ? due : null;
  };
  const { members } = world;
  await Promise.all(
    members.length === 0
      ? []
      : Array.from({ length: opts.clients }, (_, i) =>
          runClient(world, members[i % members.length]!, nextDue, samples),
        ),
  );
  return (performance.now() - started) / 1000;
}

/** One client: one request at a time, each sent when its slot is due, until the schedule runs out. */
async function runClient(
  world: LoadWorld,
  member: LoadMember,
  nextDue: () => number | null,
  samples: Sample[] | null,
): Promise<void> {
  for (let due = nextDue(); due !== null; due = nextDue()) {
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const op = drawOperation();
    const sent = performance.now();
    let status = 0;
    try {
      status = (await op.run(world, member)).status;
    } catch {
      status = 0; // no answer: refused, reset or timed out
    }
    samples?.push({ op: op.name, status, ms: performance.now() - sent });
  }
}

/** The measured phase's requests: rate, unexpected answers, and latency overall and per operation. */
function requestReport(samples: Sample[], elapsed: number): Omit<LoadReport, 'rss' | 'webhooks'> {
  const ops: Record<string, OpReport> = {};
  for (const name of new Set(samples.map((s) => s.op)))
    ops[name] = summarise(samples.filter((s) => s.op === name));
  return {
    seconds: Math.round(elapsed * 10) / 10,
    requests: samples.length,
    rps: Math.round(samples.length / elapsed),
    unexpected5xx: samples.filter((s) => s.status >= 500).length,
    noAnswer: samples.filter((s) => s.status === 0).length,
    unexpected: samples.filter((s) => !expectedStatus(s.op, s.status)).length,
    overall: summarise(samples),
    ops,
  };
}

/** How long after the load every post's post.created delivery had arrived (up to 30 s). */
async function catchUp(target: Target, postIds: number[]): Promise<LoadReport['webhooks']> {
  const started = performance.now();
  const delivered = () => {
    const ids = new Set(target.receiver.acknowledged('load').map((d) => d.data.id as number));
    return postIds.filter((id) => ids.has(id)).length;
  };
  await waitFor(() => delivered() === postIds.length, { timeoutMs: 30_000, intervalMs: 250 }).catch(
    () => null,
  );
  return {
    posts: postIds.length,
    delivered: delivered(),
    catchUpMs: Math.round(performance.now() - started),
  };
}

/** The report as the table e2e/README.md shows. */
export function formatReport(report: LoadReport, opts: LoadOptions): string {
  const lines = [
    `load: ${report.seconds} s measured after ${opts.warmupSeconds} s warm-up, ${opts.clients} clients, target ${opts.rate} req/s`,
    `requests ${report.requests}, ${report.rps} req/s, 5xx ${report.unexpected5xx}, no answer ${report.noAnswer}, unexpected ${report.unexpected}`,
    `webhooks: ${report.webhooks.delivered}/${report.webhooks.posts} post.created delivered, ${report.webhooks.catchUpMs} ms after the load`,
    `${'operation'.padEnd(16)} ${'count'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
    ...Object.entries({ ...report.ops, all: report.overall }).map(
      ([name, op]) =>
        `${name.padEnd(16)} ${String(op.count).padStart(6)} ${op.p50.toFixed(1).padStart(8)} ${op.p99
          .toFixed(1)
          .padStart(8)} ${op.max.toFixed(1).padStart(8)}`,
    ),
    `${'RSS MiB'.padEnd(16)} ${'idle'.padStart(8)} ${'start'.padStart(8)} ${'end'.padStart(8)} ${'peak'.padStart(8)}`,
    ...Object.entries(report.rss).map(
      ([name, rss]) =>
        `${name.padEnd(16)} ${[rss.idle, rss.start, rss.end, rss.peak].map((kib) => (kib / 1024).toFixed(1).padStart(8)).join(' ')}`,
    ),
  ];
  return lines.join('\n');
}
