import type { Express } from 'express';
import { createServiceApp, type HealthOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { Clock, Deps } from './domain/deps';
import type { ViewCounter } from './domain/posts/view-counter';
import { categoriesRoutes } from './routes/categories.routes';
import { commentsRoutes } from './routes/comments.routes';
import { postsRoutes } from './routes/posts.routes';

export interface AppDeps extends Deps {
  views: ViewCounter;
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  clock: Clock;
  /** PUBLIC_BASE_URL, when configured (absolute URLs in answers: pagination links, default avatars). */
  publicBaseUrl?: string;
}

/** The posts-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    health: deps.health,
    publicBaseUrl: deps.publicBaseUrl,
    routes: (router) => {
      postsRoutes(router, deps, deps.views);
      commentsRoutes(router, deps);
      categoriesRoutes(router, deps);
    },
  });
}
