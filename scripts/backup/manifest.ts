import { compareReleases, currentRelease, knownMigrations, type SchemaName } from './schemas';

export const MANIFEST_FORMAT = 'community-backup/1';

/** What a backup says of itself, beside the dump (manifest.json in the archive). */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /** The release of the code that took it (CHANGELOG.md). */
  release: string;
  /** The moment of the snapshot, from the server's clock, inside the dump's transaction. */
  snapshotAt: string;
  finishedAt: string;
  /** The migrations applied in each schema, read in the snapshot. */
  migrations: Partial<Record<SchemaName, string[]>>;
  /** The extensions the schemas use and where they live (pg_dump of chosen schemas leaves them out). */
  extensions: { name: string; schema: string }[];
  /** The erasure journal in the snapshot (ids only): a restore re-applies those not in it. */
  erasedUserIds: number[];
}

export function parseManifest(text: string): Manifest {
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.format !== MANIFEST_FORMAT)
    throw new Error(`not a backup of this platform (manifest format ${String(manifest.format)})`);
  return manifest;
}

/**
 * Why this code cannot restore the backup, or null: a newer release's, or one with migrations this
 * code does not know (its services would run on a schema they were not written for).
 */
export function refusal(manifest: Manifest): string | null {
  const release = currentRelease();
  if (compareReleases(manifest.release, release) > 0)
    return `the backup is of release ${manifest.release}, newer than this code's ${release}: restore it with that release`;
  const known = knownMigrations();
  const unknown = Object.entries(manifest.migrations).flatMap(([schema, names]) =>
    names.filter((name) => !known[schema as SchemaName]?.includes(name)).map((name) => `${schema}/${name}`),
  );
  if (unknown.length)
    return `the backup holds migrations this code does not know (${unknown.join(', ')}): restore it with the release that wrote them`;
  return null;
}
