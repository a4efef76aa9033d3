import { spawn } from 'node:child_process';
import type { Sql } from '@community/db';

/** Runs a program to its end; rejects with its stderr when it fails. */
export function run(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', (e) => reject(new Error(`${program} could not run: ${e.message}`)));
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${program} failed (${code}): ${err.trim()}`)),
    );
  });
}

/**
 * Refuses a pg_dump/pg_restore older than the server: an older client cannot read a newer server's
 * catalogue (pg_dump says so itself; this says which variable to change).
 */
export async function assertClientFits(sql: Sql, program: 'pg_dump' | 'pg_restore'): Promise<void> {
  const version = await run(program, ['--version']);
  const client = Number(/(\d+)(?:\.\d+)?/.exec(version)?.[1]);
  const [row] = await sql<{ num: string }[]>`select current_setting('server_version_num') as num`;
  const server = Math.floor(Number(row!.num) / 10_000);
  if (!(client >= server))
    throw new Error(
      `${program} ${client} is older than the server's PostgreSQL ${server}: install ${program} ${server} or newer`,
    );
}

/** One file holding the manifest and the dump: a plain tar, which any machine can open. */
export const pack = (file: string, dir: string, names: string[]) =>
  run('tar', ['-cf', file, '-C', dir, ...names]);
export const unpack = (file: string, dir: string) => run('tar', ['-xf', file, '-C', dir]);
