/**
 * CPU accounting from /proc (Linux): on a shared 2-core machine, CPU per request is steadier than
 * throughput, and it says which process the time goes to.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Child } from './processes';

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  pid: number;
  ppid: number;
  ticks: number;
  cmdline: string;
}

function allProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        cmdline,
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export type CpuGroups = Record<string, Map<number, number>>;

/**
 * CPU ticks per process of each group: a child and its direct children (nginx's worker), Redis, the
 * broker, and the PostgreSQL backends of `database` — split as `postgres <name>` by `backends`
 * (pid → the connecting application's name, from pg_stat_activity) where given.
 */
export function cpuSnapshot(
  groups: Record<string, Child>,
  database: string,
  backends?: Map<number, string>,
): CpuGroups {
  const procs = allProcesses();
  const snapshot: CpuGroups = {};
  for (const [name, child] of Object.entries(groups)) {
    const pid = child.proc.pid;
    snapshot[name] = new Map(
      procs.filter((p) => p.pid === pid || p.ppid === pid).map((p) => [p.pid, p.ticks] as const),
    );
  }
  // The Redis server is shared with anything else on the machine; the bench is its main user.
  snapshot.redis = new Map(
    procs.filter((p) => p.cmdline.startsWith('redis-server')).map((p) => [p.pid, p.ticks] as const),
  );
  // PostgreSQL backends serving the bench database ("postgres: 15/main: <user> <db> <host> …").
  for (const p of procs.filter((p) => p.cmdline.includes(` ${database} `))) {
    const name = backends?.get(p.pid) ? `postgres ${backends.get(p.pid)}` : 'postgres';
    (snapshot[name] ??= new Map()).set(p.pid, p.ticks);
  }
  // The broker, shared like Redis.
  snapshot.rabbitmq = new Map(
    procs.filter((p) => p.cmdline.includes('beam.smp')).map((p) => [p.pid, p.ticks] as const),
  );
  return snapshot;
}

export function cpuUsedMs(before: CpuGroups, after: CpuGroups): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    let ticks = 0;
    for (const [pid, t] of pids) ticks += t - (before[name]?.get(pid) ?? 0);
    used[name] = (ticks * 1000) / CLK_TCK;
  }
  return used;
}
