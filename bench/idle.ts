/**
 * Idle CPU (issue 47, DESIGN.md §18): `npm run bench:idle`, loopback only, bounded. Starts the whole
 * stack as `npm start` does (the e2e suite's owned stack: its own database, exchange and Redis
 * prefix, dropped at the end), lets it settle for BENCH_SETTLE_S (10) seconds, then measures for
 * BENCH_DURATION_S (60) seconds what each process spends on the CPU while no request arrives: every
 * service process, and the PostgreSQL backends connected to the stack's database (their polling
 * costs the database, not only the service). Target: the services together ≤ 10 ms a second.
 *
 * On-CPU time is read from /proc/<pid>/task/<tid>/schedstat (nanoseconds, every thread: the event
 * loop, libuv's pool and V8's GC helpers).
 */
import './owned-stack-env';
import { readdirSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { startOwnedStack } from '../e2e/src/stack/owned-stack';

const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 60);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Nanoseconds process `pid` has spent on a CPU so far, all its threads; 0 once it is gone. */
function onCpuNs(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
      try {
        return sum + Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        return sum; // the thread ended between the listing and the read
      }
    }, 0);
  } catch {
    return 0;
  }
}

async function main() {
  const stack = await startOwnedStack('bench_idle');
  const admin = postgres(process.env.TEST_PG_URL!, { max: 1, onnotice: () => undefined });
  try {
    await sleep(SETTLE_S * 1000);
    const services = Object.entries(stack.services).map(([name, p]) => ({ name, pid: p.pid! }));
    const backends = (
      await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${stack.databaseName}`
    ).map(({ pid }) => ({ name: 'postgres backend', pid }));
    const watched = [...services, ...backends];
    const before = watched.map(({ pid }) => onCpuNs(pid));
    const started = performance.now();
    await sleep(DURATION_S * 1000);
    const seconds = (performance.now() - started) / 1000;
    const msPerS = watched.map(({ pid }, i) => (onCpuNs(pid) - before[i]!) / 1e6 / seconds);
    const total = (from: number, to: number) => msPerS.slice(from, to).reduce((a, b) => a + b, 0);

    console.log(`idle for ${seconds.toFixed(0)} s after ${SETTLE_S} s of settling, CPU in ms a second:`);
    services.forEach(({ name }, i) => console.log(`  ${name.padEnd(18)} ${msPerS[i]!.toFixed(2)}`));
    console.log(`  ${'services together'.padEnd(18)} ${total(0, services.length).toFixed(2)} (target ≤ 10)`);
    console.log(
      `  ${`${backends.length} PG backends`.padEnd(18)} ${total(services.length, watched.length).toFixed(2)}`,
    );
  } finally {
    await admin.end();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
