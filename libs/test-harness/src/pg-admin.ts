import postgres from 'postgres';

const OBJECT_IN_USE = '55006';
const DROP_ATTEMPTS = 5;

/** Runs `fn` on a one-connection client to the server at `serverUrl` and always closes it. */
export async function withServer<T>(serverUrl: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(serverUrl, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `serverUrl` with its database swapped for `name`; credentials, host and query stay. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Drops each database, first ending the sessions that still use it. Missing databases are fine. */
export async function dropDatabases(sql: postgres.Sql, names: readonly string[]): Promise<void> {
  for (const name of names) {
    // A pool under test may reconnect between the terminate and the drop, so try a few times.
    for (let attempt = 1; ; attempt += 1) {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      try {
        await sql.unsafe(`drop database if exists ${quoteIdent(name)}`);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt >= DROP_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }
}
