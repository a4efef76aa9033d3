import { z } from 'zod';
import {
  dataServiceEnv,
  intVar,
  loadConfig,
  parseConfig,
  portVar,
  publicBaseUrlVar,
} from '@community/config';

export const postsConfigSchema = z.object({
  ...dataServiceEnv,
  POSTS_SERVICE_PORT: portVar(3001),
  PUBLIC_BASE_URL: publicBaseUrlVar(),
  // One query of a search (DESIGN.md §11, §21) may take this long, then it is 503 search_timeout.
  SEARCH_TIMEOUT_MS: intVar(1_000, 1),
  // How many searches one process runs at once; more wait briefly, then get a 429 (README).
  SEARCH_CONCURRENCY: intVar(2, 1),
  // Flags of accounts younger than this are queued but do not count towards hiding (DESIGN.md §21);
  // 0: every flag counts.
  FLAG_MIN_ACCOUNT_AGE_HOURS: intVar(24, 0),
});

export type PostsConfig = z.output<typeof postsConfigSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): PostsConfig =>
  loadConfig(postsConfigSchema, env);
export const parsePostsConfig = (env: NodeJS.ProcessEnv): PostsConfig => parseConfig(postsConfigSchema, env);
