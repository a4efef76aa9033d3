// `node dist/migrate.js`: applies this service's migrations and exits (the Kubernetes init container).
import { runMigrations } from '@community/service-runtime';
import { readConfig } from './config';
import { MIGRATIONS_DIR, SCHEMA, SERVICE } from './start';

runMigrations({ service: SERVICE, schema: SCHEMA, migrationsDir: MIGRATIONS_DIR }, readConfig());
