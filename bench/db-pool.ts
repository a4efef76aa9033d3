/**
 * CPU per query of a libs/db pool under steady load, over time (`npm run bench:db-pool`): the figure
 * postgres.js 3.4.9's pool queues made grow with every query, and patches/postgres+3.4.9.patch keeps
 * flat (README, "Operations"). Two loads, each on a pool whose connections are all open first: below
 * the pool's size (10 connections, 3 callers: its idle queue never runs empty) and above it (4
 * connections, 32 callers: its busy queue never does). Each caller sends `select 1` after `select 1`;
 * every BENCH_INTERVAL_S the bench prints the queries a second and this process's CPU (user + system)
 * per query over that interval. The unpatched figures: `npx patch-package --reverse`, run, then
 * `npx patch-package`.
 *
 * Env: BENCH_SECONDS (24 per load), BENCH_INTERVAL_S (4), BENCH_DATABASE_URL (the maintenance
 * database of 127.0.0.1: the bench reads nothing and writes nothing).
 */
import { createDb } from '@community/db';
import { intEnv } from './infra';

const SECONDS = intEnv('BENCH_SECONDS', 24);
const INTERVAL_S = intEnv('BENCH_INTERVAL_S', 4);
const URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function steady(label: string, max: number, callers: number): Promise<void> {
  const sql = createDb(URL, { schema: 'public', max });
  await Promise.all(Array.from({ length: max }, () => sql`select pg_sleep(0.05)`));
  console.log(`\n${label}: ${max} connections, ${callers} callers, ${SECONDS} s`);
  console.log('   at  queries/s  CPU µs/query');
  const started = Date.now();
  let answered = 0;
  let mark = { at: started, answered: 0, cpu: process.cpuUsage() };
  const report = setInterval(() => {
    const now = Date.now();
    const cpu = process.cpuUsage(mark.cpu);
    const queries = answered - mark.answered;
    const seconds = `${Math.round((now - started) / 1000)} s`.padStart(5);
    const rate = String(Math.round((queries * 1000) / (now - mark.at))).padStart(10);
    const perQuery = ((cpu.user + cpu.system) / queries).toFixed(1).padStart(13);
    console.log(`${seconds} ${rate} ${perQuery}`);
    mark = { at: now, answered, cpu: process.cpuUsage() };
  }, INTERVAL_S * 1000);
  const caller = async () => {
    while (Date.now() - started < SECONDS * 1000) {
      await sql`select 1`;
      answered++;
    }
  };
  try {
    await Promise.all(Array.from({ length: callers }, caller));
  } finally {
    clearInterval(report);
    await sql.end({ timeout: 5 });
  }
}

async function main(): Promise<void> {
  console.log(`command: npm run bench:db-pool (${new Date().toISOString()}), node ${process.version}`);
  await steady('below the pool size', 10, 3);
  await steady('above the pool size', 4, 32);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
