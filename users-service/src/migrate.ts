// `node dist/migrate.js`: applies this service's migrations and exits (the Kubernetes init container).
import { runMigrations } from '@community/service-runtime';
import { readConfig } from './config';
import { SERVICE_SCHEMA } from './start';

runMigrations(SERVICE_SCHEMA, readConfig());
