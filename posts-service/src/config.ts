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
  // One query of a search (DESIGN.md §11) may take this long before it is refused as too broad.
  SEARCH_TIMEOUT_MS: intVar(5_000, 1),
  // How many searches one process runs at once; more wait briefly, then get a 429 (README).
  SEARCH_CONCURRENCY: intVar(2, 1),
});

export type PostsConfig = z.output<typeof postsConfigSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): PostsConfig =>
  loadConfig(postsConfigSchema, env);
export const parsePostsConfig = (env: NodeJS.ProcessEnv): PostsConfig => parseConfig(postsConfigSchema, env);
