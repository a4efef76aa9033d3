import path from 'node:path';
import { START_COMMANDS, unreachableError } from '@community/config';
import { createDb, ensureDatabase, loadMigrations, migrate, pingDb } from '@community/db';
import { AmqpConnection, EventConsumer, eventsMigrations, OutboxRelay } from '@community/events';
import { createRegistry, listen } from '@community/http-kit';
import { createLogger, type Logger } from '@community/logging';
import { buildApp } from './app';
import type { UsersConfig } from './config';
import { UsageTracker } from './domain/keys/usage-tracker';
import { ensureAdmin } from './domain/users/bootstrap-admin';
import { handlers } from './events/consumers';
import { Housekeeping } from './domain/accounts/housekeeping';
import { accountPages } from './pages';

export const SERVICE = 'users-service';
export const SCHEMA = 'users';
const VERSION = process.env.npm_package_version ?? '1.0.0';

export interface UsersService {
  url: string;
  port: number;
  logger: Logger;
  stop(): Promise<void>;
}

/** Starts users-service: database and migrations, admin bootstrap, events, HTTP. */
export async function start(
  config: UsersConfig,
  logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL }),
): Promise<UsersService> {
  await ensureDatabase(config.DATABASE_URL).catch((err: unknown) => {
    throw unreachableError('PostgreSQL', config.DATABASE_URL, err, START_COMMANDS.postgres);
  });
  const sql = createDb(config.DATABASE_URL, { schema: SCHEMA, max: config.DB_POOL_MAX });
  const applied = await migrate(sql, SCHEMA, [
    ...eventsMigrations,
    ...loadMigrations(path.join(__dirname, 'db', 'migrations')),
  ]);
  if (applied.length) logger.info({ applied }, 'migrations applied');

  const amqp = new AmqpConnection({ url: config.AMQP_URL, name: SERVICE, logger });
  amqp.start();
  const registry = createRegistry(SERVICE);
  const relay = new OutboxRelay({ sql, amqp, exchange: config.AMQP_EXCHANGE, logger, registry });
  const consumer = new EventConsumer({
    sql,
    amqp,
    exchange: config.AMQP_EXCHANGE,
    service: SERVICE,
    handlers,
    logger,
    registry,
  });
  const deps = { sql, afterCommit: () => relay.kick() };
  relay.start();
  consumer.start();

  if (config.ADMIN_USERNAME && config.ADMIN_PASSWORD && config.ADMIN_EMAIL) {
    await ensureAdmin(
      deps,
      { username: config.ADMIN_USERNAME, password: config.ADMIN_PASSWORD, email: config.ADMIN_EMAIL },
      logger,
    );
  }
  const usage = new UsageTracker(sql, logger);
  usage.start();
  const housekeeping = new Housekeeping(sql, logger);
  housekeeping.start();

  let shuttingDown = false;
  const app = buildApp({
    ...deps,
    logger,
    usage,
    internalToken: config.INTERNAL_TOKEN,
    pages: (router) => accountPages(router, { ...deps, logger }),
    health: {
      version: VERSION,
      registry,
      isShuttingDown: () => shuttingDown,
      checks: [
        { name: 'postgres', critical: true, run: () => pingDb(sql) },
        {
          name: 'rabbitmq',
          critical: false,
          run: async () => amqp.isConnected() || Promise.reject(new Error('not connected')),
        },
      ],
    },
  });
  const server = await listen(app, config.USERS_SERVICE_PORT);
  logger.info({ port: server.port }, `${SERVICE} listening`);

  return {
    url: server.url,
    port: server.port,
    logger,
    async stop() {
      shuttingDown = true;
      await server.close(config.SHUTDOWN_GRACE_MS);
      housekeeping.stop();
      await usage.stop();
      await consumer.stop();
      await relay.stop();
      await amqp.close();
      await sql.end({ timeout: 5 });
    },
  };
}
