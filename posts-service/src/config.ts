import { z } from 'zod';
import { dataServiceEnv, loadConfig, parseConfig, portVar, publicBaseUrlVar } from '@community/config';

export const postsConfigSchema = z.object({
  ...dataServiceEnv,
  POSTS_SERVICE_PORT: portVar(3001),
  PUBLIC_BASE_URL: publicBaseUrlVar(),
});

export type PostsConfig = z.output<typeof postsConfigSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): PostsConfig =>
  loadConfig(postsConfigSchema, env);
export const parsePostsConfig = (env: NodeJS.ProcessEnv): PostsConfig => parseConfig(postsConfigSchema, env);
