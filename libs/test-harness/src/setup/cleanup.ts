import Redis from 'ioredis';

import { dropDatabases, quoteIdent, withServer } from '../pg-admin';
import { testDatabasePrefix } from '../test-database';

/** Drops every database a run created and did not drop itself. */
export async function dropRunDatabases(pgUrl: string, runId: string): Promise<string[]> {
  return withServer(pgUrl, async (sql) => {
    // starts_with, not LIKE: '_' in the prefix would be a LIKE wildcard.
    const rows = await sql<{ datname: string }[]>`
      select datname from pg_database where starts_with(datname, ${testDatabasePrefix(runId)})`;
    const names = rows.map((row) => row.datname);
    await dropDatabases(sql, names);
    return names;
  });
}

/** Drops every role a run created and did not drop itself; run after dropRunDatabases. */
export async function dropRunRoles(pgUrl: string, runId: string): Promise<string[]> {
  return withServer(pgUrl, async (sql) => {
    const rows = await sql<{ rolname: string }[]>`
      select rolname from pg_roles where starts_with(rolname, ${testDatabasePrefix(runId)})`;
    const names = rows.map((row) => row.rolname);
    for (const name of names) await sql.unsafe(`drop role if exists ${quoteIdent(name)}`);
    return names;
  });
}

/** Deletes every key under `test:<runId>:`, in batches so a big keyspace never blocks Redis. */
export async function deleteRunKeys(redisUrl: string, runId: string): Promise<number> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => {}); // the failed command below reports it
  try {
    await redis.connect();
    let deleted = 0;
    const stream = redis.scanStream({ match: `test:${runId}:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    }
    return deleted;
  } finally {
    redis.disconnect();
  }
}
