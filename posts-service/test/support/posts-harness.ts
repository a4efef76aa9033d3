import { randomBytes } from 'node:crypto';
import { createDb, type Sql } from '@community/db';
import { topologyNames } from '@community/events';
import {
  createTestDatabase,
  deleteAmqpObjects,
  testExchange,
  testInfra,
  type TestDatabase,
} from '@community/test-harness';
import { parsePostsConfig, type PostsConfig } from '../../src/config';
import { SCHEMA, SERVICE, start } from '../../src/start';
import { actor, apiClient } from '@community/test-harness';

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
  opts: { amqpUrl?: string } = {},
): Promise<PostsHarness> {
  const infra = testInfra();
  const database: TestDatabase = await createTestDatabase(label);
  const exchange = testExchange(label);
  const config = parsePostsConfig({
    DATABASE_URL: database.url,
    AMQP_URL: opts.amqpUrl ?? infra.amqpUrl,
    AMQP_EXCHANGE: exchange,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    POSTS_SERVICE_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
  });
  let service = await start(config);
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
      service = await start({ ...config, POSTS_SERVICE_PORT: service.port });
    },
    async stop() {
      await service.stop();
      await sql.end({ timeout: 1 });
      const names = topologyNames(exchange, SERVICE);
      await deleteAmqpObjects(infra.amqpUrl, {
        queues: [names.queue, names.deadLetterQueue],
        exchanges: [names.exchange, names.deadLetterExchange],
      });
      await database.drop();
    },
  };
  return harness;
}
