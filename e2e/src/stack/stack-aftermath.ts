import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';

/**
 * Prints what the services logged at level error (an answer of 500 among them, with its request id
 * and stack): the one place a CI run shows why, since the log files stay on its machine.
 */
export function reportLoggedErrors(logDir: string, max = 10): void {
  const lines = readdirSync(logDir)
    .filter((file) => file.endsWith('.log'))
    .flatMap((file) =>
      readFileSync(path.join(logDir, file), 'utf8')
        .split('\n')
        .filter((line) => /"level":"(error|fatal)"/.test(line))
        .map((line) => `${file}: ${line.slice(0, 4_000)}`),
    );
  if (lines.length === 0) return;
  const more = lines.length > max ? `\n(${lines.length - max} more in ${logDir})` : '';
  process.stderr.write(
    `the services logged ${lines.length} errors:\n${lines.slice(0, max).join('\n')}${more}\n`,
  );
}

export async function terminate(
  serverUrl: string,
  database: string,
  applicationName: string,
): Promise<number> {
  const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = ${database} and application_name = ${applicationName} and pid <> pg_backend_pid()`;
    return rows.filter((row) => row.ok).length;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
