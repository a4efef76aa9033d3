import path from 'node:path';
import { unreachableError } from '@community/config';
import {
  createDb,
  ensureDatabase,
  idempotencyMigrations,
  loadMigrations,
  migrate,
  type Sql,
} from '@community/db';
import { eventsMigrations } from '@community/events';
import { createLogger } from '@community/logging';

/**
 * Applies a service's pending migrations into its schema: the outbox/inbox and idempotency-key
 * tables, then its own files.
 */
export function applyMigrations(sql: Sql, schema: string, migrationsDir: string): Promise<string[]> {
  return migrate(sql, schema, [
    ...eventsMigrations,
    ...idempotencyMigrations,
    ...loadMigrations(migrationsDir),
  ]);
}

/**
 * Applies a service's pending migrations on a pool of their own, closed afterwards: the migrator needs
 * two connections (libs/db migrate), whatever the service's own pool allows (DB_POOL_MAX may be 1).
 */
export async function migrateSchema(
  databaseUrl: string,
  schema: string,
  migrationsDir: string,
): Promise<string[]> {
  const sql = createDb(databaseUrl, { schema, max: 2 });
  try {
    return await applyMigrations(sql, schema, migrationsDir);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Creates the database when it is missing; an unreachable server becomes the one-line start error. */
export async function ensureServiceDatabase(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl).catch((err: unknown) => {
    throw unreachableError('PostgreSQL', databaseUrl, err, 'DATABASE_URL');
  });
}

/** What a service's schema is made of: its name, its schema, its migration files. */
export interface ServiceSchema {
  service: string;
  schema: string;
  migrationsDir: string;
}

/**
 * A service's schema with its migrations in `db/migrations` beside its start file: src/db/migrations
 * in development; the build copies them next to the compiled files.
 */
export function serviceSchema(service: string, schema: string, startDir: string): ServiceSchema {
  return { service, schema, migrationsDir: path.join(startDir, 'db', 'migrations') };
}

/**
 * A service's `migrate` entry point (`node dist/migrate.js`, the Kubernetes init container): applies
 * the pending migrations and exits 0, or prints one line and exits 1. Starting the service applies
 * them too, under the same lock, so running both is safe.
 */
export function runMigrations(
  { service, schema, migrationsDir }: ServiceSchema,
  config: { DATABASE_URL: string; LOG_LEVEL: string },
): void {
  const logger = createLogger({ service, level: config.LOG_LEVEL });
  (async () => {
    await ensureServiceDatabase(config.DATABASE_URL);
    const applied = await migrateSchema(config.DATABASE_URL, schema, migrationsDir);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'migrations up to date');
  })().then(
    () => {
      logger.flush();
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(
        `${service} migrations failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
