import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './service-process';

export interface CommandResult {
  code: number | null;
  /** stdout and stderr interleaved, as a terminal shows them. */
  output: string;
  timedOut: boolean;
}

const running = new Set<ChildProcess>();

/**
 * Runs a command in a process group of its own, killed whole (npx, jest and its workers) past
 * `timeoutMs` or by `killCommands()`: a failed test leaves nothing running.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let output = '';
    const collect = (chunk: Buffer) => (output += chunk.toString());
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, output, timedOut });
    });
  });
}

/** Kills every command `runCommand` started that is still running (a test that timed out). */
export function killCommands(): void {
  for (const child of running) killGroup(child);
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The last `lines` lines of a command's output, for a failure message. */
export const tail = (output: string, lines = 60): string =>
  output.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * A git worktree of `commit` under the temporary directory with its dependencies installed, reused
 * by later runs (`npm ci` only when its node_modules never completed). Throws with the output of
 * whatever failed.
 */
export async function releaseWorktree(commit: string, npmCiTimeoutMs: number): Promise<string> {
  const dir = path.join(os.tmpdir(), `community-release-${commit}`);
  if (!existsSync(path.join(dir, '.git'))) {
    // A directory left by an interrupted `worktree add` (or its record, lock included) goes first.
    await runCommand('git', ['worktree', 'remove', '--force', dir], { cwd: REPO_ROOT, timeoutMs: 30_000 });
    await runCommand('git', ['worktree', 'prune'], { cwd: REPO_ROOT, timeoutMs: 30_000 });
    await must('git', ['worktree', 'add', '--detach', dir, commit], REPO_ROOT, 60_000);
  }
  if (!existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) {
    await must('npm', ['ci', '--no-audit', '--no-fund'], dir, npmCiTimeoutMs);
  }
  return dir;
}

async function must(command: string, args: string[], cwd: string, timeoutMs: number): Promise<void> {
  const result = await runCommand(command, args, { cwd, timeoutMs });
  if (result.code === 0) return;
  const how = result.timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited ${result.code}`;
  throw new Error(`\`${command} ${args.join(' ')}\` in ${cwd} ${how}:\n${tail(result.output)}`);
}
