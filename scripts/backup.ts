/**
 * `npm run backup -- <file>` (DESIGN.md §16): one consistent snapshot of every service's schema
 * (pg_dump, custom format, on a snapshot exported from one repeatable-read transaction) and a
 * manifest read in that same snapshot (release, migrations applied, time, the erasure journal's
 * ids), as one tar file. Reads DATABASE_URL. SECRETS_KEY is not in it: keep it beside the file.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DATABASE_URL, redactUrl } from '@community/config';
import { createDb, type Sql } from '@community/db';
import { MANIFEST_FORMAT, type Manifest } from './backup/manifest';
import { currentRelease, SERVICE_SCHEMAS } from './backup/schemas';
import { assertClientFits, pack, run } from './backup/tools';

type Snapshot = Omit<Manifest, 'format' | 'release' | 'finishedAt'>;

/** Whether a table exists (a schema made by init-roles.sh but never migrated has none). */
async function hasTable(tx: Sql, name: string): Promise<boolean> {
  const [row] = await tx<{ present: boolean }[]>`select to_regclass(${name}) is not null as present`;
  return row!.present;
}

/** What the manifest says of the data, read inside the snapshot the dump reads. */
async function readSnapshot(tx: Sql, schemas: string[]): Promise<Snapshot> {
  const [now] = await tx<{ at: Date }[]>`select now() as at`;
  const migrations: Snapshot['migrations'] = {};
  for (const schema of schemas) {
    if (!(await hasTable(tx, `${schema}.schema_migrations`))) continue;
    const rows = await tx<{ name: string }[]>`select name from ${tx(schema)}.schema_migrations order by name`;
    migrations[schema as keyof Snapshot['migrations']] = rows.map((r) => r.name);
  }
  const journal = (await hasTable(tx, 'users.erasures'))
    ? await tx<{ userId: number }[]>`select user_id from users.erasures order by user_id`
    : [];
  // pg_dump leaves extensions out of a dump of chosen schemas; restore makes them where they were.
  const extensions = await tx<{ name: string; schema: string }[]>`
    select e.extname as name, n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname <> 'plpgsql'`;
  const erasedUserIds = journal.map((r) => r.userId);
  return { snapshotAt: now!.at.toISOString(), migrations, extensions, erasedUserIds };
}

async function presentSchemas(sql: Sql): Promise<string[]> {
  const wanted = SERVICE_SCHEMAS.map((s) => s.schema);
  const rows = await sql<
    { nspname: string }[]
  >`select nspname from pg_namespace where nspname in ${sql(wanted)}`;
  return wanted.filter((name) => rows.some((r) => r.nspname === name));
}

/** pg_dump of `schemas` on the snapshot of an open transaction, into `file`. */
async function dumpIn(tx: Sql, databaseUrl: string, schemas: string[], file: string): Promise<Snapshot> {
  await tx`set transaction isolation level repeatable read, read only`;
  const [exported] = await tx<{ id: string }[]>`select pg_export_snapshot() as id`;
  const snapshot = await readSnapshot(tx, schemas);
  const only = schemas.flatMap((schema) => ['--schema', schema]);
  await run('pg_dump', [
    '--format=custom',
    `--snapshot=${exported!.id}`,
    ...only,
    '--file',
    file,
    `--dbname=${databaseUrl}`,
  ]);
  return snapshot;
}

export async function backup(databaseUrl: string, file: string): Promise<Manifest> {
  const sql = createDb(databaseUrl, { schema: 'public', max: 1 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'community-backup-'));
  try {
    await assertClientFits(sql, 'pg_dump');
    const schemas = await presentSchemas(sql);
    if (!schemas.length) throw new Error('the database holds no service schema');
    const snapshot = await sql.begin((tx) =>
      dumpIn(tx as unknown as Sql, databaseUrl, schemas, path.join(dir, 'database.pgdump')),
    );
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      release: currentRelease(),
      ...snapshot,
      finishedAt: new Date().toISOString(),
    };
    writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await pack(`${file}.partial`, dir, ['manifest.json', 'database.pgdump']);
    renameSync(`${file}.partial`, file); // a file named `file` is always a whole backup
    return manifest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sql.end({ timeout: 5 });
  }
}

if (require.main === module) {
  const file = process.argv[2];
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (!file) {
    process.stderr.write('usage: npm run backup -- <file>   (reads DATABASE_URL)\n');
    process.exit(2);
  }
  const started = Date.now();
  backup(databaseUrl, path.resolve(file)).then(
    (m) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `backup of ${redactUrl(databaseUrl)} (release ${m.release}, snapshot ${m.snapshotAt}) written to ${file} in ${seconds} s\n`,
      );
    },
    (err: unknown) => {
      process.stderr.write(`backup failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
