import type { IncomingMessage, RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { shutdownDelayMs } from '@community/config';
import { createDb, joinable, pingDb, type Sql } from '@community/db';
import {
  AmqpConnection,
  EventConsumer,
  OutboxRelay,
  type EventHandler,
  type TxDeps,
} from '@community/events';
import { createRegistry, listen, type HealthOptions, type IdempotencyOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { Registry } from 'prom-client';
import { IdempotencyKeySweeper, OutboxSweeper } from './sweepers';
import { ensureServiceDatabase, migrateSchema, type ServiceSchema } from './migrations';

/** The variables every data service reads (see dataServiceEnv in @community/config). */
export interface DataServiceConfig {
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_EXCHANGE: string;
  DB_POOL_MAX: number;
  SHUTDOWN_GRACE_MS: number;
  /** How long a stop serves on with `/readyz` 503 first (unset: see shutdownDelayMs). */
  SHUTDOWN_DELAY_MS?: number;
  NODE_ENV?: string;
  /** The address the HTTP server listens on (default 127.0.0.1: only the gateway is public). */
  SERVICE_HOST?: string;
  PUBLIC_BASE_URL?: string;
}

export interface DataServiceSpec extends ServiceSchema {
  handlers: Record<string, EventHandler>;
  /** After an event's transaction committed. */
  onEventApplied?: () => void;
  port: number;
  config: DataServiceConfig;
  logger: Logger;
  /** Work after migrations and before the HTTP server opens (e.g. bootstrap data). */
  prepare?: (runtime: DataRuntime) => Promise<void>;
  /** Builds the HTTP handler from the runtime. */
  app: (runtime: DataRuntime) => RequestListener;
  /** Takes the server's `Upgrade` requests (users-service's stream channel); none: they are requests like any other. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * Runs as the stop begins, when `/readyz` turns 503: e.g. to tell the peers of long-lived
   * connections to open what comes next elsewhere.
   */
  onRetiring?: () => void;
  /**
   * Runs as the server stops accepting, after SHUTDOWN_DELAY_MS: e.g. to end long-lived answers the
   * grace period would wait for (their clients reconnect elsewhere by then).
   */
  onStopping?: () => void;
  /** Background work of the service, stopped after the server and before the pool closes. */
  onStop?: () => Promise<void> | void;
}

export interface DataRuntime extends TxDeps {
  sql: Sql;
  registry: Registry;
  amqp: AmqpConnection;
  health: HealthOptions;
  /** What the service's `/api/v1` POSTs need for `Idempotency-Key` (DESIGN.md §10). */
  idempotency: IdempotencyOptions;
  /** PUBLIC_BASE_URL, for the absolute URLs the service writes. */
  publicBaseUrl?: string;
}

export interface RunningDataService {
  url: string;
  port: number;
  /** The address the server is bound to (SERVICE_HOST). */
  address: string;
  logger: Logger;
  stop(): Promise<void>;
}

const VERSION = process.env.npm_package_version ?? '1.0.0';
/** Services answer the gateway only, unless SERVICE_HOST opens them (containers: 0.0.0.0). */
const LOOPBACK = '127.0.0.1';

/**
 * What every service that owns a schema does at start: database and forward-only migrations, the
 * event bus with its outbox relay and consumer, readiness per dependency, HTTP — and the reverse,
 * in order, on stop.
 */
export async function startDataService(spec: DataServiceSpec): Promise<RunningDataService> {
  const { config, logger, service } = spec;
  const { pool, sql } = await openSchema(spec);
  const registry = createRegistry(service);
  const { amqp, relay, consumer } = startEventBus(spec, sql, registry);
  const sweepers = [new IdempotencyKeySweeper(sql, logger), new OutboxSweeper(sql, logger)];
  for (const sweeper of sweepers) sweeper.start();

  let shuttingDown = false;
  const runtime: DataRuntime = {
    sql,
    afterCommit: () => relay.kick(),
    registry,
    amqp,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    idempotency: { sql, logger, afterCommit: crashAfterCommit() },
    health: readiness(sql, amqp, registry, () => shuttingDown),
  };
  await spec.prepare?.(runtime);
  const server = await listen(spec.app(runtime), spec.port, config.SERVICE_HOST ?? LOOPBACK);
  if (spec.upgrade) server.server.on('upgrade', spec.upgrade);
  const { address } = server.server.address() as AddressInfo;
  logger.info({ address, port: server.port }, `${service} listening`);

  return {
    url: server.url,
    port: server.port,
    address,
    logger,
    async stop() {
      shuttingDown = true;
      spec.onRetiring?.();
      await server.retire(shutdownDelayMs(config), config.SHUTDOWN_GRACE_MS, spec.onStopping);
      await spec.onStop?.();
      for (const sweeper of sweepers) sweeper.stop();
      await consumer.stop();
      await relay.stop();
      await amqp.close();
      await pool.end({ timeout: 5 });
    },
  };
}

/** The service's database and schema, migrated: the pool, and `sql` over it that joins ambient transactions. */
async function openSchema(spec: DataServiceSpec): Promise<{ pool: Sql; sql: Sql }> {
  const { config, logger, schema } = spec;
  await ensureServiceDatabase(config.DATABASE_URL);
  const applied = await migrateSchema(config.DATABASE_URL, schema, spec.migrationsDir);
  const pool = createDb(config.DATABASE_URL, { schema, max: config.DB_POOL_MAX });
  // Queries join an idempotent request's transaction where one is open (see libs/db ambient.ts).
  const sql = joinable(pool);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  return { pool, sql };
}

/** The broker connection, the outbox relay sending what the service committed, the event consumer. */
function startEventBus(spec: DataServiceSpec, sql: Sql, registry: Registry) {
  const { config, logger, service } = spec;
  const amqp = new AmqpConnection({ url: config.AMQP_URL, name: service, logger });
  amqp.start();
  const exchange = config.AMQP_EXCHANGE;
  const relay = new OutboxRelay({ sql, amqp, exchange, logger, registry });
  const consumer = new EventConsumer({
    sql,
    amqp,
    exchange,
    service,
    handlers: spec.handlers,
    logger,
    registry,
    // A handler may have written events of its own (users-service's notifications): out at once.
    onApplied: () => {
      relay.kick();
      spec.onEventApplied?.();
    },
  });
  relay.start();
  consumer.start();
  return { amqp, relay, consumer };
}

function readiness(
  sql: Sql,
  amqp: AmqpConnection,
  registry: Registry,
  isShuttingDown: () => boolean,
): HealthOptions {
  return {
    version: VERSION,
    registry,
    isShuttingDown,
    checks: [
      { name: 'postgres', critical: true, run: () => pingDb(sql) },
      // Writes keep working through the outbox while the broker is away: degraded, not down.
      {
        name: 'rabbitmq',
        critical: false,
        run: async () => amqp.isConnected() || Promise.reject(new Error('not connected')),
      },
    ],
  };
}

/**
 * Fault injection for the e2e suite only, never set in a deployment: the process dies right after
 * committing the request that carries this Idempotency-Key, before answering it — the crash a
 * retry must survive without a second write (e2e/test/owned-stack/process-faults.test.ts).
 */
function crashAfterCommit(): ((key: string) => void) | undefined {
  const fatal = process.env.E2E_CRASH_AFTER_COMMIT_KEY;
  if (!fatal) return undefined;
  return (key) => {
    if (key === fatal) process.kill(process.pid, 'SIGKILL');
  };
}
export { PendingBatch, type PendingBatchOptions } from './pending-batch';
export {
  applyMigrations,
  migrateSchema,
  runMigrations,
  serviceSchema,
  type ServiceSchema,
} from './migrations';
export { runService, lostConnectionRejections, type Stoppable } from './lifecycle';
export { IdempotencyKeySweeper, OutboxSweeper } from './sweepers';
