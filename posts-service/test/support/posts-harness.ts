import { randomBytes } from 'node:crypto';
import { createDb, type Sql } from '@community/db';
import { actor, apiClient, serviceSandbox, testInfra } from '@community/test-harness';
import { parsePostsConfig, type PostsConfig } from '../../src/config';
import type { Clock } from '../../src/domain/clock';
import { SCHEMA, SERVICE, start } from '../../src/start';

export interface PostsHarness {
  config: PostsConfig;
  exchange: string;
  url: string;
  call: ReturnType<typeof apiClient>;
  /** A direct connection to the service's schema, for arranging data and asserting on it. */
  sql: Sql;
  admin: ReturnType<typeof actor>;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/** posts-service on port 0 against its own database and exchange, torn down by `stop()`. */
export async function startPostsService(
  label = 'posts',
  opts: { amqpUrl?: string; clock?: Clock } = {},
): Promise<PostsHarness> {
  const infra = testInfra();
  const sandbox = await serviceSandbox(label);
  const { database, exchange } = sandbox;
  const config = parsePostsConfig({
    DATABASE_URL: database.url,
    AMQP_URL: opts.amqpUrl ?? infra.amqpUrl,
    AMQP_EXCHANGE: exchange,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    POSTS_SERVICE_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
  });
  let service = await start(config, undefined, opts.clock);
  const sql = createDb(database.url, { schema: SCHEMA, max: 2 });
  const harness: PostsHarness = {
    config,
    exchange,
    url: service.url,
    call: apiClient(service.url, config.INTERNAL_TOKEN),
    sql,
    admin: actor(1, 'admin', ['read', 'write', 'moderate', 'admin']),
    async restart() {
      await service.stop();
      service = await start({ ...config, POSTS_SERVICE_PORT: service.port }, undefined, opts.clock);
    },
    async stop() {
      await service.stop();
      await sql.end({ timeout: 1 });
      await sandbox.cleanup([SERVICE]);
    },
  };
  return harness;
}
