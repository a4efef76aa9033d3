import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitAnswering } from './ready';
import { freePort } from '@community/test-harness';

/** A process a bench started, its output going to a file of its own. */
export interface Child {
  name: string;
  proc: ChildProcess;
  log: string;
}

/** Starts `command`; its output goes to `<logDir>/<name>.log`, never through the bench's process. */
export function startChild(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { cwd, logDir }: { cwd: string; logDir: string },
): Child {
  const log = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(log, 'a');
  // Output goes to a file, never through this process: it stays idle while the load runs.
  const proc = spawn(command, args, { cwd, env, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  return { name, proc, log };
}

const running = (child: Child) => child.proc.exitCode === null && child.proc.signalCode === null;

function logTail(child: Child, lines = 20): string {
  try {
    return fs.readFileSync(child.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits until `url` answers 2xx; fails with the child's last output when it exits first or never does. */
export function waitHttp(child: Child, url: string): Promise<void> {
  return waitAnswering({ name: child.name, running: () => running(child), log: () => logTail(child) }, url, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

/** SIGTERM, and SIGKILL after 15 s. */
export async function stopChild(child: Child): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    console.error(`${child.name} did not stop within 15 s: SIGKILL`);
    child.proc.kill('SIGKILL');
  }, 15_000);
  await exited;
  clearTimeout(timer);
}

/** What the deployments give node: docker-compose.yml's and the Kubernetes base's NODE_OPTIONS. */
export const DEPLOYED_NODE_ARGS = ['--max-semi-space-size=32'];

/**
 * How a service runs: `built` as its image runs it (`node --enable-source-maps dist/main.js`, after
 * `npm run build` in its checkout), `source` from TypeScript through tsx (whose transform names
 * every closure it creates at run time). BENCH_RUN, `built` unless set.
 */
export function runMode(): 'built' | 'source' {
  const mode = process.env.BENCH_RUN ?? 'built';
  if (mode !== 'built' && mode !== 'source') throw new Error('BENCH_RUN must be built or source');
  return mode;
}

/** Compiles a checkout as its images do, when services run built. */
export function build(checkout: string): void {
  if (runMode() !== 'built') return;
  if (spawnSync('npm', ['run', 'build'], { cwd: checkout, stdio: 'ignore' }).status !== 0)
    throw new Error(`npm run build failed in ${checkout}`);
}

/**
 * A worktree of the repository at `root` at `revision`, with its own `npm ci` and, when services run
 * built and `built` is not false (a caller that runs them from source), its own build: that
 * revision's services, libraries and packages as they were.
 */
export function checkoutAt(root: string, revision: string, { built = true } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-baseline-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, revision], { cwd: root, stdio: 'ignore' });
  try {
    console.log(`baseline ${revision}: npm ci in ${dir}`);
    const flags = ['--ignore-scripts', '--no-audit', '--no-fund'];
    const ci = spawnSync('npm', ['ci', ...flags], { cwd: dir, stdio: 'ignore' });
    if (ci.status !== 0) {
      // Lock files of older revisions may lack entries today's npm requires (other platforms'
      // binaries): install from the lock file as far as it goes.
      console.log(`baseline ${revision}: npm ci refused its lock file, npm install instead`);
      execFileSync('npm', ['install', ...flags], { cwd: dir, stdio: 'ignore' });
    }
    if (built) build(dir);
    return dir;
  } catch (err) {
    removeCheckout(root, dir);
    throw err;
  }
}

/** Removes a worktree checkoutAt made. */
export function removeCheckout(root: string, dir: string): void {
  spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root });
}

/** The arguments that start the service in `dir` (a workspace: `posts-service`, `gateway`…). */
export function serviceArgs(dir: string, nodeArgs: string[] = []): string[] {
  return runMode() === 'built'
    ? [...nodeArgs, '--enable-source-maps', path.join(dir, 'dist/main.js')]
    : [...nodeArgs, '--conditions=source', '--import', 'tsx', path.join(dir, 'src/main.ts')];
}

/**
 * The processes one bench run starts, each logging to `<workDir>/<name>.log`, stopped together at the
 * end; `cwd` is the checkout they run from unless a start names another.
 */
export class BenchChildren {
  readonly all: Child[] = [];

  constructor(private readonly place: { cwd: string; workDir: string; logLevel: string }) {}

  /** Starts `command`, kept for stopAll. */
  start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd = this.place.cwd): Child {
    const child = startChild(name, command, args, env, { cwd, logDir: this.place.workDir });
    this.all.push(child);
    return child;
  }

  /** The service in `dir` as its container runs it, a process of its own (its GC pauses are its own). */
  service(name: string, dir: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = [], cwd = this.place.cwd) {
    return this.start(name, process.execPath, serviceArgs(dir, nodeArgs), this.serviceEnv(env), cwd);
  }

  /** What a service child runs with: the bench's PATH and HOME, production, the log level, then `env`. */
  serviceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const { PATH, HOME } = process.env;
    return { PATH, HOME, NODE_ENV: 'production', LOG_LEVEL: this.place.logLevel, ...this.extraEnv, ...env };
  }

  /** Variables every service started from now on gets too (BENCH_TRACING's OTLP endpoint). */
  extraEnv: NodeJS.ProcessEnv = {};

  async stopAll(): Promise<void> {
    await Promise.all(this.all.map((child) => stopChild(child)));
  }
}

/**
 * BENCH_TRACING=1: every service started after this traces every request (100 % sampled) to a
 * local OTLP sink (bench/otlp-sink.mjs) that reads and drops each export. A checkout from before
 * tracing existed is not traced. Returns the sink's address, whose `/stats` counts the spans
 * received from each service.
 */
export async function traceEverything(children: BenchChildren, root: string): Promise<string> {
  const port = await freePort();
  const sink = children.start(
    'otlp-sink',
    process.execPath,
    [path.join(root, 'bench', 'otlp-sink.mjs'), String(port)],
    {},
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHttp(sink, `${url}/`);
  children.extraEnv = {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_TRACES_SAMPLER: 'always_on',
  };
  return url;
}

/** The environment that turns tracing off for one service of a traced bench (its `untraced` twin). */
export const UNTRACED_ENV = { OTEL_SDK_DISABLED: 'true' };

/** Spans the sink has received so far, by service name. */
export async function sinkSpans(sinkUrl: string): Promise<Record<string, number>> {
  const res = await fetch(`${sinkUrl}/stats`);
  return ((await res.json()) as { spans: Record<string, number> }).spans;
}

/** Runs a bench's `main`, then `cleanup` however it ends: done, failed, or SIGINT / SIGTERM (exit 130). */
export function runBench(main: () => Promise<void>, cleanup: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      console.error(`\n${signal}: stopping`);
      process.exitCode = 130;
      void cleanup().then(() => process.exit(130));
    });
  main()
    .catch((err: unknown) => {
      const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
      console.error(err instanceof Error ? `${err.message}${cause}` : err);
      process.exitCode = 1;
    })
    .finally(() => cleanup());
}

/** How a bench was run, for the first line of its report: its BENCH_* settings, the script, the time. */
export function commandLine(script: string): string {
  const settings = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_'))
    .map(([name, value]) => `${name}=${value} `)
    .join('');
  return `command: ${settings}npm run ${script} (${new Date().toISOString()})`;
}
