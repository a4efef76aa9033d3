/**
 * What the instruction-counting benches share (`bench:posts-instructions`, `bench:gateway-instructions`):
 * a process under valgrind's callgrind, a warm-up of a fixed number of reads so that V8 has optimised
 * the hot path whatever valgrind's slowness, then batches of reads counted one by one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { getStatus } from './measure';

/** valgrind's arguments before the node command: callgrind, its files in `workDir`. */
export const callgrindArgs = (workDir: string) => [
  '--tool=callgrind',
  `--callgrind-out-file=${workDir}/cg.%p`,
];

/** Sends `count` GETs, `concurrency` at a time, each of `paths` in turn; every one must answer 200. */
export async function loadReads(
  base: string,
  paths: string[],
  headersFor: (path: string) => Record<string, string>,
  count: number,
  concurrency: number,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const path = paths[next++ % paths.length]!;
      const status = await getStatus(agent, base + path, headersFor(path), 120_000);
      if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
}

/** The instructions callgrind counted since it was last zeroed, from its newest dump. */
function dumpedInstructions(pid: number, workDir: string): number {
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  const dumps = fs
    .readdirSync(workDir)
    .filter((f) => f.startsWith(`cg.${pid}.`))
    .map((f) => path.join(workDir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  const text = fs.readFileSync(dumps[0]!, 'utf8');
  const match = /^(?:summary|totals):\s*(\d+)/m.exec(text);
  if (!match) throw new Error(`no totals in ${dumps[0]}`);
  return Number(match[1]);
}

/**
 * Instructions per request of process `pid`, one figure per batch of `requests` sent by `send`:
 * their spread says how far to trust the figure (a batch with a major GC in it counts more).
 */
export async function countedBatches(
  pid: number,
  workDir: string,
  batches: number,
  requests: number,
  send: () => Promise<void>,
): Promise<number[]> {
  const perBatch: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
    await send();
    perBatch.push(dumpedInstructions(pid, workDir) / requests);
  }
  return perBatch;
}

/** One line per checkout: the median of its batches, and every batch; `note` says how it ran. */
export function reportCounted(checkout: string, perBatch: number[], note = ''): void {
  const commit = execFileSync('git', ['-C', checkout, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' })
    .trim()
    .slice(0, 90);
  reportLine(`${checkout} (${commit})${note}`, perBatch);
}

/** One line for what was counted: the median of its batches, and every batch. */
export function reportLine(what: string, perBatch: number[]): void {
  const median = [...perBatch].sort((a, b) => a - b)[Math.floor(perBatch.length / 2)]!;
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  console.log(
    `${what}: median ${fmt(median)} instructions per request (batches: ${perBatch.map(fmt).join(', ')})`,
  );
}
