import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, readlinkSync, type WriteStream } from 'node:fs';
import path from 'node:path';

export type ServiceName = 'posts' | 'users' | 'webhooks' | 'gateway';

export interface ServiceSpec {
  name: ServiceName;
  /** Workspace directory of the service, relative to the repository root. */
  dir: string;
  /** The checkout it runs from: this repository unless given (the previous release's worktree). */
  root?: string;
  port: number;
  env: NodeJS.ProcessEnv;
  /** Extra V8 flags, as scripts/start.ts gives them. */
  nodeArgs?: string[];
  logFile: string;
}

export const REPO_ROOT = path.resolve(__dirname, '../../..');
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * One service as `npm start` runs it: its own node process (`node --conditions=source --import tsx
 * <dir>/src/main.ts`) on a fixed port, so a restart after a kill comes back where the gateway
 * expects it. Output goes to a log file, which failures quote.
 */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private log: WriteStream;

  constructor(readonly spec: ServiceSpec) {
    this.log = createWriteStream(spec.logFile, { flags: 'a' });
  }

  get name(): ServiceName {
    return this.spec.name;
  }

  get url(): string {
    return `http://127.0.0.1:${this.spec.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and resolves once its /readyz answers 200. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.log.write(`\n=== start ${new Date().toISOString()}\n`);
    const child = spawn(
      process.execPath,
      [
        ...(this.spec.nodeArgs ?? []),
        '--conditions=source',
        '--import',
        'tsx',
        path.join(this.spec.dir, 'src/main.ts'),
      ],
      { cwd: this.spec.root ?? REPO_ROOT, env: this.spec.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stdout!.pipe(this.log, { end: false });
    child.stderr!.pipe(this.log, { end: false });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await this.waitReady(child);
  }

  /** SIGKILL: no drain, no goodbye — what a crash or an OOM kill looks like to everyone else. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait for the graceful stop; SIGKILL if it takes too long. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const child = this.child!;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /**
   * One step of a rolling restart: SIGTERM, the process drains and exits by itself, a new one starts
   * and is ready. Resolves with how the old one ended (0: a clean stop; a signal name: it was killed).
   */
  async replace(): Promise<number | string | null> {
    const child = this.child;
    await this.stop();
    const ended = child ? (child.exitCode ?? child.signalCode) : null;
    await this.start();
    return ended;
  }

  /** Resident set size in KiB from /proc (Linux), or null when the process is not running. */
  rssKiB(): number | null {
    if (!this.running || !this.pid) return null;
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  close(): void {
    this.log.end();
  }

  /** The last lines the process wrote, for an error message. */
  tail(lines = 20): string {
    try {
      return readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.name} exited during start; its log ends with:\n${this.tail()}`);
      }
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        // Ready only if the answer is its own: another process that took the port meanwhile answers
        // too, and this one then exits of EADDRINUSE (caught above, with its log).
        if (res.ok && listensOn(child.pid!, this.spec.port)) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.name} was not ready within ${READY_TIMEOUT_MS / 1000} s; log:\n${this.tail()}`);
  }
}

/**
 * Whether process `pid` itself listens on loopback `port`: the listening socket's inode, from the
 * kernel's TCP tables, among the process's open files. Where /proc cannot tell, assumed so.
 */
function listensOn(pid: number, port: number): boolean {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const listening = new Set<string>();
  let readable = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(local) && fields[3] === '0A' && fields[9]) listening.add(fields[9]);
    }
  }
  if (!readable) return true;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        return inode !== undefined && listening.has(inode);
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false; // the process is gone
  }
}
