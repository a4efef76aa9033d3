import { createDb, migrate, type Sql } from '@community/db';
import { createLogger, type Logger } from '@community/logging';
import {
  createTestDatabase,
  deleteAmqpObjects,
  probeQueue,
  startTcpProxy,
  testInfra,
  type ProbeQueue,
  type TcpProxy,
  type TestDatabase,
} from '@community/test-harness';
import type { Registry } from 'prom-client';
import {
  AmqpConnection,
  eventsMigrations,
  OutboxRelay,
  topologyNames,
  type AmqpConnectionOptions,
} from '../../src';

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

/** A running outbox relay over a fresh database, and a probe queue that sees what it publishes. */
export interface RelayRig {
  db: ServiceDatabase;
  amqp: AmqpConnection;
  relay: OutboxRelay;
  probe: ProbeQueue;
  /** Stops the relay and deletes the database and the exchange. */
  close(): Promise<void>;
}

/**
 * A relay polling every 50 ms, publishing to `exchange` over `amqpUrl` (a proxy's, to cut it; the
 * broker's by default), connected before it returns. The probe always listens on the broker itself.
 */
export async function startRelay(
  label: string,
  exchange: string,
  opts: { amqpUrl?: string; registry?: Registry; pollIntervalMs?: number } = {},
): Promise<RelayRig> {
  const brokerUrl = testInfra().amqpUrl;
  const db = await serviceDatabase(`events_${label}`);
  const probe = await probeQueue(brokerUrl, exchange);
  const amqp = fastConnection(opts.amqpUrl ?? brokerUrl, `${label}-test`);
  const relay = new OutboxRelay({
    sql: db.sql,
    amqp,
    exchange,
    logger,
    pollIntervalMs: opts.pollIntervalMs ?? 50,
    retryBaseMs: 50,
    registry: opts.registry,
  });
  relay.start();
  await amqp.waitUntilConnected(5_000);
  return {
    db,
    amqp,
    relay,
    probe,
    async close() {
      await relay.stop();
      await amqp.close();
      await probe.close();
      await deleteAmqpObjects(brokerUrl, { exchanges: [exchange] });
      await db.close();
    },
  };
}

/** A proxy in front of `url` (the broker's, the database's) that a test can cut and restore. */
export function proxyTo(url: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(url);
  return startTcpProxy({ host: hostname, port: Number(port) });
}

export type ProxiedRelayRig = RelayRig & { proxy: TcpProxy };

/** {@link startRelay} connected through a proxy of the broker, so a test can take the broker away. */
export async function startRelayBehindProxy(label: string, exchange: string): Promise<ProxiedRelayRig> {
  const { amqpUrl } = testInfra();
  const proxy = await proxyTo(amqpUrl);
  const rig = await startRelay(label, exchange, { amqpUrl: proxy.url(amqpUrl) });
  return {
    ...rig,
    proxy,
    async close() {
      await rig.close();
      await proxy.stop();
    },
  };
}

/** Deletes what a consumer of `exchange` declared: its queue and dead-letter queue, and both exchanges. */
export async function deleteTopology(exchange: string, service: string): Promise<void> {
  const names = topologyNames(exchange, service);
  await deleteAmqpObjects(testInfra().amqpUrl, {
    queues: [names.queue, names.deadLetterQueue],
    exchanges: [exchange, names.deadLetterExchange],
  });
}
