import { createDb, migrate, type Sql } from '@community/db';
import { createLogger, type Logger } from '@community/logging';
import { createTestDatabase, type TestDatabase } from '@community/test-harness';
import { AmqpConnection, eventsMigrations, type AmqpConnectionOptions } from '../../src';

export const SCHEMA = 'svc';

/** Quiet unless LOG_LEVEL asks otherwise, so a failing test can be rerun with the library's logs. */
export const logger: Logger = createLogger({
  service: 'events-test',
  level: process.env.LOG_LEVEL ?? 'silent',
});

export interface ServiceDatabase {
  sql: Sql;
  url: string;
  close(): Promise<void>;
}

/** A fresh database with the events tables (plus any extra SQL) in the service schema. */
export async function serviceDatabase(label: string, extraSql = ''): Promise<ServiceDatabase> {
  const database: TestDatabase = await createTestDatabase(label);
  const sql = createDb(database.url, { schema: SCHEMA, max: 5 });
  const extra = extraSql ? [{ name: '0100_test.sql', sql: extraSql }] : [];
  await migrate(sql, SCHEMA, [...eventsMigrations, ...extra]);
  return {
    sql,
    url: database.url,
    async close() {
      await sql.end({ timeout: 1 });
      await database.drop();
    },
  };
}

/** A started connection with test-sized backoffs and timeouts. */
export function fastConnection(
  url: string,
  name: string,
  extra: Partial<AmqpConnectionOptions> = {},
): AmqpConnection {
  const amqp = new AmqpConnection({
    url,
    name,
    logger,
    reconnectMinMs: 50,
    reconnectMaxMs: 200,
    heartbeatSeconds: 5,
    confirmTimeoutMs: 2_000,
    ...extra,
  });
  amqp.start();
  return amqp;
}
