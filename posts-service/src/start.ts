import path from 'node:path';
import { START_COMMANDS, unreachableError } from '@community/config';
import { createDb, ensureDatabase, loadMigrations, migrate, pingDb } from '@community/db';
import { AmqpConnection, EventConsumer, eventsMigrations, OutboxRelay } from '@community/events';
import { createRegistry, listen } from '@community/http-kit';
import { createLogger, type Logger } from '@community/logging';
import { buildApp } from './app';
import type { PostsConfig } from './config';
import { handlers } from './events/consumers';

export const SERVICE = 'posts-service';
export const SCHEMA = 'posts';
const VERSION = process.env.npm_package_version ?? '1.0.0';

export interface PostsService {
  url: string;
  port: number;
  logger: Logger;
  stop(): Promise<void>;
}

/** Starts posts-service: database and migrations, event bus, outbox relay, consumer, HTTP. */
export async function start(
  config: PostsConfig,
  logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL }),
) {
  await ensureDatabase(config.DATABASE_URL).catch((err: unknown) => {
    throw unreachableError('PostgreSQL', config.DATABASE_URL, err, START_COMMANDS.postgres);
  });
  const sql = createDb(config.DATABASE_URL, { schema: SCHEMA, max: config.DB_POOL_MAX });
  const applied = await migrate(sql, SCHEMA, [...eventsMigrations, ...loadMigrations(migrationsDir())]);
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
  relay.start();
  consumer.start();

  let shuttingDown = false;
  const app = buildApp({
    sql,
    afterCommit: () => relay.kick(),
    logger,
    internalToken: config.INTERNAL_TOKEN,
    health: {
      version: VERSION,
      registry,
      isShuttingDown: () => shuttingDown,
      checks: [
        { name: 'postgres', critical: true, run: () => pingDb(sql) },
        // Writes keep working through the outbox while the broker is away: degraded, not down.
        {
          name: 'rabbitmq',
          critical: false,
          run: async () => amqp.isConnected() || Promise.reject(new Error('not connected')),
        },
      ],
    },
  });
  const server = await listen(app, config.POSTS_SERVICE_PORT);
  logger.info({ port: server.port }, `${SERVICE} listening`);

  return {
    url: server.url,
    port: server.port,
    logger,
    async stop() {
      shuttingDown = true;
      await server.close(config.SHUTDOWN_GRACE_MS);
      await consumer.stop();
      await relay.stop();
      await amqp.close();
      await sql.end({ timeout: 5 });
    },
  } satisfies PostsService;
}

function migrationsDir(): string {
  // src/db/migrations in development; the build copies it next to the compiled files.
  return path.join(__dirname, 'db', 'migrations');
}
