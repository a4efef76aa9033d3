/**
 * Webhooks end to end (issues #5, #47): `npm run bench:webhooks`, loopback only, bounded.
 * users-service, posts-service, webhook-service and the gateway run as separate processes; receivers
 * are node:http servers in this process; posts and webhooks go through the gateway with an API key.
 * Each run (bench/webhook-run.ts):
 * 1. Latency: 1 receiver, BENCH_E2E_POSTS (200) posts in sequence, POST sent -> delivery received,
 *    with the stages in between read from the database; BENCH_E2E_PAUSE_MS (0) adds random pauses.
 * 2. Throughput: BENCH_ENDPOINTS (10) receivers, BENCH_FANOUT_POSTS (300) posts, BENCH_IN_FLIGHT (8)
 *    at once.
 * Runs, side by side in one invocation:
 * - BENCH_BASELINE (unset): a git revision whose stack runs first, from a worktree with its own
 *   npm ci, with one webhook-service (e.g. c422562, v1.0.0);
 * - this checkout once per count in BENCH_WEBHOOK_REPLICAS (1; `1,2` adds a run with two
 *   webhook-service processes sharing the work);
 * - BENCH_ROUNDS (1) times, every other round in reverse order, so a slow spell hits both sides.
 * Every delivery is verified with standardwebhooks. Isolated per run: database community_bench_<ns>
 * (dropped at start and end), exchange bench.<ns>.events, Redis prefix bench:<ns>:, free ports, with
 * <ns> from BENCH_NAMESPACE (wh) and the run's name. Services run as BENCH_RUN says (built).
 * Env: BENCH_WH_DATABASE_URL (one database every run uses in turn), BENCH_REDIS_URL, BENCH_AMQP_URL,
 * BENCH_LOG_LEVEL (warn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchPlace, intEnv } from './infra';
import { BenchChildren, build, checkoutAt, commandLine, removeCheckout, runBench } from './processes';
import { percentile } from './measure';
import { runWebhooks, SETTINGS, type RunFigures, type Target } from './webhook-run';

const root = path.resolve(__dirname, '..');
const BASELINE = process.env.BENCH_BASELINE;
const ROUNDS = intEnv('BENCH_ROUNDS', 1);
const REPLICAS = (process.env.BENCH_WEBHOOK_REPLICAS ?? '1').split(',').map(Number);
if (!REPLICAS.every((n) => Number.isInteger(n) && n >= 1 && n <= 4))
  throw new Error('BENCH_WEBHOOK_REPLICAS must list counts from 1 to 4, e.g. 1,2');
/** How long after the last 201 the last delivery may arrive (issue 47: the dispatcher keeps pace). */
const KEEP_PACE_MS = 1000;
const CAP = 10;

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wh-'));
const children: BenchChildren[] = [];
let baselineDir: string | undefined;

/** The runs of one round, each with a place and processes of its own. */
function targets(round: number): Target[] {
  const target = (label: string, tree: string, webhookReplicas: number, suffix: string): Target => {
    const logDir = path.join(workDir, `${suffix}-${round}`);
    fs.mkdirSync(logDir);
    const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
    const group = new BenchChildren({ cwd: tree, workDir: logDir, logLevel });
    children.push(group);
    const place = benchPlace('wh', 'BENCH_WH_DATABASE_URL', suffix);
    return { label, root: tree, webhookReplicas, children: group, place };
  };
  const runs = REPLICAS.map((n) => target(`this checkout ×${n}`, root, n, `r${n}`));
  if (BASELINE) runs.unshift(target(`baseline ${BASELINE}`, baselineDir!, 1, 'base'));
  return runs;
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

/** Phase 2's CPU a post, a row per process group (the second webhook-service counted with the first). */
function cpuRows(runs: RunFigures[]): [string, (r: RunFigures) => string][] {
  const group = (name: string) => name.replace(/-\d+$/, '');
  const of = (r: RunFigures, name: string) =>
    Object.entries(r.cpuPerPost).reduce((sum, [g, ms]) => sum + (group(g) === name ? ms : 0), 0);
  // Groups that did nothing (the bench's own connection) are left out.
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.cpuPerPost).map(group)))].filter((name) =>
    runs.some((r) => of(r, name) >= 0.01),
  );
  const total = (r: RunFigures) => Object.values(r.cpuPerPost).reduce((a, b) => a + b, 0);
  return [
    ...names.map((name): [string, (r: RunFigures) => string] => [
      `CPU a post: ${name}`,
      (r) => ms(of(r, name)),
    ]),
    ['CPU a post: all of them', (r) => ms(total(r))],
  ];
}

/** The figures of every run side by side, with the targets of issue 47. */
function report(runs: RunFigures[]): void {
  const col = 24;
  const lines: [string, (r: RunFigures) => string][] = [
    ['1. POST -> delivery p50', (r) => ms(percentile(r.endToEnd, 50))],
    ['1. POST -> delivery p99', (r) => ms(percentile(r.endToEnd, 99))],
    ['1. POST -> 201 p50', (r) => ms(percentile(r.created, 50))],
    [`2. posts/s, ${SETTINGS.IN_FLIGHT} in flight`, (r) => r.postsPerSecond.toFixed(0)],
    ['2. POST -> 201 p50', (r) => ms(percentile(r.fanCreated, 50))],
    ['2. POST -> delivery p99', (r) => ms(percentile(r.fanEndToEnd, 99))],
    [`2. deliveries/s to ${SETTINGS.ENDPOINTS}`, (r) => r.deliveriesPerSecond.toFixed(0)],
    ['2. last delivery after last 201', (r) => ms(r.lastAfterPosts)],
    [`most open at one receiver`, (r) => String(r.maxInFlight)],
    ['lost, twice or unverified', (r) => String(r.faults)],
    ...cpuRows(runs),
  ];
  console.log(`\n${''.padEnd(34)}${runs.map((r) => r.label.padStart(col)).join('')}`);
  for (const [name, cell] of lines)
    console.log(`${name.padEnd(34)}${runs.map((r) => cell(r).padStart(col)).join('')}`);

  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const mine = runs.filter((r) => !r.label.startsWith('baseline'));
  for (const r of mine) {
    const pace = r.lastAfterPosts <= KEEP_PACE_MS && r.faults === 0 && r.maxInFlight <= CAP;
    console.log(
      `${r.label}: last delivery within ${KEEP_PACE_MS} ms of the last 201, none lost or twice, ` +
        `≤ ${CAP} open at a receiver: ${verdict(pace)}`,
    );
  }
  const base = runs.filter((r) => r.label.startsWith('baseline'));
  if (!base.length) return;
  const mean = (rs: RunFigures[], f: (r: RunFigures) => number) =>
    rs.reduce((a, r) => a + f(r), 0) / rs.length;
  const single = mine.filter((r) => r.label.endsWith('×1'));
  const rate = mean(single, (r) => r.postsPerSecond) / mean(base, (r) => r.postsPerSecond);
  const p99 = (r: RunFigures) => percentile(r.endToEnd, 99);
  const tail = mean(single, p99) / mean(base, p99);
  console.log(
    `this checkout ÷ baseline (means over rounds): posts/s ${rate.toFixed(2)}× (≥ 1: ${verdict(rate >= 1)}), ` +
      `end-to-end p99 ${tail.toFixed(2)}× (≤ 1: ${verdict(tail <= 1)})`,
  );
}

async function main(): Promise<void> {
  console.log(commandLine('bench:webhooks'));
  build(root);
  if (BASELINE) baselineDir = checkoutAt(root, BASELINE);
  console.log(
    `node ${process.version}, ${os.cpus().length} cores shared by the services, receivers, PostgreSQL, ` +
      `RabbitMQ, Redis; load average at start ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const figures: RunFigures[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const runs = targets(round);
    if (round % 2 === 0) runs.reverse();
    for (const run of runs) figures.push(await runWebhooks(run));
  }
  report(figures);
  if (figures.some((r) => r.faults > 0)) process.exitCode = 1;
}

async function cleanup(): Promise<void> {
  for (const group of children) await group.stopAll();
  if (baselineDir) removeCheckout(root, baselineDir);
  baselineDir = undefined;
  if (process.exitCode) console.error(`logs kept in ${workDir}`);
  else fs.rmSync(workDir, { recursive: true, force: true });
}

runBench(main, cleanup);
