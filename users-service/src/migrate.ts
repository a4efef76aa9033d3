// `node dist/migrate.js`: applies this service's migrations and exits (the Kubernetes init container).
import { createLogger } from '@community/logging';
import { runMigrations } from '@community/service-runtime';
import { readConfig } from './config';
import { MIGRATIONS_DIR, SCHEMA, SERVICE } from './start';

const config = readConfig();
runMigrations({
  service: SERVICE,
  schema: SCHEMA,
  migrationsDir: MIGRATIONS_DIR,
  databaseUrl: config.DATABASE_URL,
  logger: createLogger({ service: SERVICE, level: config.LOG_LEVEL }),
});
