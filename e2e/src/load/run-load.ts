import { waitFor } from '@community/test-harness';
import { createPost, subscribe } from '../flows';
import type { ServiceName } from '../stack/service-process';
import type { OwnedStack } from '../stack/owned-stack';
import type { Target } from '../target';
import { UNLIMITED } from '../world';
import { drawOperation, expectedStatus, type LoadWorld } from './mix';

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
  const services = Object.values(target.owned.services);
  const rss = () =>
    Object.fromEntries(services.map((s) => [s.name, s.rssKiB() ?? 0])) as Record<ServiceName, number>;
  const peak = rss();
  const sampler = setInterval(() => {
    for (const [name, kib] of Object.entries(rss()) as [ServiceName, number][]) {
      peak[name] = Math.max(peak[name], kib);
    }
  }, 500);

  const phase = async (seconds: number, samples: Sample[] | null) => {
    const started = performance.now();
    const end = started + seconds * 1000;
    const interval = 1000 / opts.rate;
    let issued = 0;
    await Promise.all(
      world.members.length === 0
        ? []
        : Array.from({ length: opts.clients }, async (_, i) => {
            const member = world.members[i % world.members.length]!;
            for (;;) {
              const due = started + issued++ * interval;
              if (due >= end) return;
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
          }),
    );
    return (performance.now() - started) / 1000;
  };

  const idle = rss();
  await phase(opts.warmupSeconds, null);
  const before = rss();
  const samples: Sample[] = [];
  const elapsed = await phase(opts.seconds, samples);
  const after = rss();
  clearInterval(sampler);
  const webhooks = await catchUp(target, world.postIds);

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
    rss: Object.fromEntries(
      services.map((s) => {
        const [start, end] = [before[s.name], after[s.name]];
        return [s.name, { idle: idle[s.name], start, end, peak: Math.max(peak[s.name], end) }];
      }),
    ) as LoadReport['rss'],
    webhooks,
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
