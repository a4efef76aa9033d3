import { databaseUrl, withServer } from '../pg-admin';
import { redactUrl } from './reachable';

const INVALID_CATALOG_NAME = '3D000';

/**
 * Logs in once so bad credentials fail here in one sentence rather than in every test. The harness
 * needs only the server: DATABASE_URL often names the app's database before it exists, so fall back
 * to the `postgres` maintenance database then.
 */
export async function usablePgServerUrl(url: string, source: string): Promise<string> {
  try {
    await withServer(url, (sql) => sql`select 1`);
    return url;
  } catch (err) {
    const fallback = databaseUrl(url, 'postgres');
    if (codeOf(err) === INVALID_CATALOG_NAME && fallback !== url) return usablePgServerUrl(fallback, source);
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`PostgreSQL at ${redactUrl(url)} refused the test harness (${reason}): fix ${source}.`);
  }
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}
