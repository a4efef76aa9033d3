import {
  actor,
  startServiceUnderTest,
  type ServiceDefinition,
  type ServiceUnderTest,
} from '@community/test-harness';
import { parsePostsConfig, type PostsConfig } from '../../src/config';
import type { Clock } from '../../src/domain/clock';
import { SERVICE_SCHEMA, start, type PostsService } from '../../src/start';

/**
 * What a posts-service started by a test runs with unless the test says otherwise. Its accounts are
 * minted on the spot, so their flags count at once (FLAG_MIN_ACCOUNT_AGE_HOURS=0); the gateway's
 * stacks start posts-service through this too. flag-standing.test.ts runs the default of 24 hours.
 */
const POSTS_TEST_ENV = { FLAG_MIN_ACCOUNT_AGE_HOURS: '0' };

/** How a test starts posts-service (the shared factory does the rest). */
export const postsService = (clock?: Clock): ServiceDefinition<PostsConfig, PostsService> => ({
  service: SERVICE_SCHEMA.service,
  schema: SERVICE_SCHEMA.schema,
  portVar: 'POSTS_SERVICE_PORT',
  parse: (env) => parsePostsConfig({ ...POSTS_TEST_ENV, ...env }),
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
