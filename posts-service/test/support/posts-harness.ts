import {
  actor,
  startServiceUnderTest,
  type ServiceDefinition,
  type ServiceUnderTest,
} from '@community/test-harness';
import { parsePostsConfig, type PostsConfig } from '../../src/config';
import type { Clock } from '../../src/domain/clock';
import { SCHEMA, SERVICE, start, type PostsService } from '../../src/start';

/** How a test starts posts-service (the shared factory does the rest). */
export const postsService = (clock?: Clock): ServiceDefinition<PostsConfig, PostsService> => ({
  service: SERVICE,
  schema: SCHEMA,
  portVar: 'POSTS_SERVICE_PORT',
  parse: parsePostsConfig,
  start: (config) => start(config, undefined, clock),
});

export interface PostsHarness extends ServiceUnderTest<PostsConfig, PostsService> {
  admin: ReturnType<typeof actor>;
}

/** posts-service on port 0 against its own database and exchange, torn down by `stop()`. */
export async function startPostsService(
  label = 'posts',
  opts: { amqpUrl?: string; clock?: Clock; env?: Record<string, string> } = {},
): Promise<PostsHarness> {
  const env: Record<string, string> = { ...opts.env, ...(opts.amqpUrl ? { AMQP_URL: opts.amqpUrl } : {}) };
  const harness = await startServiceUnderTest(postsService(opts.clock), { label, env });
  return Object.assign(harness, { admin: actor(1, 'admin', ['read', 'write', 'moderate', 'admin']) });
}
