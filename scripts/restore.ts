/**
 * `npm run restore -- <file> [--erasures-from <postgres-url | journal.json>]` (DESIGN.md §16):
 * restores a backup (scripts/backup.ts) into the EMPTY database at DATABASE_URL, creating it when
 * missing. Refuses a database holding any table, and a backup of a newer release. Erasures journaled
 * after the snapshot (read from the old database or an exported journal) are left for users-service,
 * which erases those accounts again when it starts. docs/operations.md has the runbook.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DATABASE_URL, redactUrl } from '@community/config';
import { createDb, ensureDatabase, type Sql } from '@community/db';
import { leaveForReapply, readJournal } from './backup/erasures';
import { parseManifest, refusal, type Manifest } from './backup/manifest';
import { assertClientFits, run, unpack } from './backup/tools';

export interface RestoreOptions {
  erasuresFrom?: string;
}

/** The tables (and sequences, views) outside PostgreSQL's own schemas: none in an empty database. */
async function relationCount(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'S', 'v', 'm', 'f')
      and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`;
  return row!.n;
}

/**
 * The extensions as the source had them (where they were made by the admin, init-roles.sh, they
 * exist already), then the dump's table of contents without the schemas the database has already:
 * those init-roles.sh made, empty and owned by the services' roles. pg_restore would fail on them.
 */
async function prepare(sql: Sql, manifest: Manifest, dump: string, dir: string): Promise<string> {
  for (const { name, schema } of manifest.extensions) {
    await sql`create schema if not exists ${sql(schema)}`;
    await sql`create extension if not exists ${sql(name)} with schema ${sql(schema)}`;
  }
  const existing = (await sql<{ name: string }[]>`select nspname as name from pg_namespace`).map(
    (r) => r.name,
  );
  const skip = (line: string) => existing.some((name) => line.includes(` SCHEMA - ${name} `));
  const list = (await run('pg_restore', ['--list', dump])).split('\n').map((l) => (skip(l) ? `;${l}` : l));
  const file = path.join(dir, 'restore.list');
  writeFileSync(file, list.join('\n'));
  return file;
}

export async function restore(databaseUrl: string, file: string, options: RestoreOptions = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'community-restore-'));
  await ensureDatabase(databaseUrl);
  const sql = createDb(databaseUrl, { schema: 'public', max: 1 });
  try {
    await unpack(file, dir);
    const manifest: Manifest = parseManifest(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const refused = refusal(manifest);
    if (refused) throw new Error(refused);
    if ((await relationCount(sql)) > 0)
      throw new Error(`${redactUrl(databaseUrl)} is not empty: restore into a new, empty database`);
    await assertClientFits(sql, 'pg_restore');
    const dump = path.join(dir, 'database.pgdump');
    const list = await prepare(sql, manifest, dump, dir);
    await run('pg_restore', [
      '--exit-on-error',
      '--single-transaction',
      `--use-list=${list}`,
      `--dbname=${databaseUrl}`,
      dump,
    ]);
    const journal = options.erasuresFrom ? await readJournal(options.erasuresFrom) : null;
    const reapply = journal ? await leaveForReapply(databaseUrl, manifest.erasedUserIds, journal) : 0;
    return { manifest, reapply, journalRead: journal !== null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sql.end({ timeout: 5 });
  }
}

function parseArgs(argv: string[]): { file?: string; erasuresFrom?: string } {
  const at = argv.indexOf('--erasures-from');
  const erasuresFrom = at >= 0 ? argv[at + 1] : process.env.ERASURES_FROM || undefined;
  const rest = at >= 0 ? argv.filter((_, i) => i !== at && i !== at + 1) : argv;
  return { file: rest[0], erasuresFrom };
}

if (require.main === module) {
  const { file, erasuresFrom } = parseArgs(process.argv.slice(2));
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (!file) {
    process.stderr.write(
      'usage: npm run restore -- <file> [--erasures-from <postgres-url|journal.json>]   (reads DATABASE_URL)\n',
    );
    process.exit(2);
  }
  const started = Date.now();
  restore(databaseUrl, path.resolve(file), { erasuresFrom }).then(
    ({ manifest, reapply, journalRead }) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const erasures = journalRead
        ? `${reapply} erasures after the snapshot left for users-service to re-apply at start`
        : 'NO erasure journal given (--erasures-from): erasures after the snapshot are not re-applied';
      process.stdout.write(
        `restored ${file} (release ${manifest.release}, snapshot ${manifest.snapshotAt}) into ${redactUrl(databaseUrl)} in ${seconds} s; ${erasures}\n`,
      );
    },
    (err: unknown) => {
      process.stderr.write(
        `restore refused or failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
