import { readFileSync } from 'node:fs';
import path from 'node:path';
import { idempotencyMigrations, loadMigrations } from '@community/db';
import { eventsMigrations } from '@community/events';

export const ROOT = path.resolve(__dirname, '../..');

/** Every service's schema in the one database, with its migrations folder (DESIGN.md §16). */
export const SERVICE_SCHEMAS = [
  { schema: 'posts', migrationsDir: 'posts-service/src/db/migrations' },
  { schema: 'users', migrationsDir: 'users-service/src/db/migrations' },
  { schema: 'webhooks', migrationsDir: 'webhook-service/src/db/migrations' },
] as const;

export type SchemaName = (typeof SERVICE_SCHEMAS)[number]['schema'];

/** The migrations this code knows, per schema: what a service applies at start. */
export function knownMigrations(): Record<SchemaName, string[]> {
  const shared = [...eventsMigrations, ...idempotencyMigrations].map((m) => m.name);
  return Object.fromEntries(
    SERVICE_SCHEMAS.map(({ schema, migrationsDir }) => [
      schema,
      [...shared, ...loadMigrations(path.join(ROOT, migrationsDir)).map((m) => m.name)],
    ]),
  ) as Record<SchemaName, string[]>;
}

/** This code's release: the newest heading of CHANGELOG.md (`## v1.2.0 — …`). */
export function currentRelease(): string {
  const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  const match = /^## v(\d+\.\d+\.\d+)/m.exec(changelog);
  if (!match) throw new Error('CHANGELOG.md names no release (## vX.Y.Z)');
  return match[1]!;
}

/** -1, 0 or 1 as release `a` is older than, the same as or newer than `b` (X.Y.Z). */
export function compareReleases(a: string, b: string): number {
  const [x, y] = [a, b].map((r) => r.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! < y![i]! ? -1 : 1;
  return 0;
}
