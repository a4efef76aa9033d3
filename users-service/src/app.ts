import type { Express, Router } from 'express';
import type { TxDeps } from '@community/events';
import { createServiceApp, type HealthOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { UsageTracker } from './domain/keys/usage-tracker';
import { internalRoutes } from './routes/internal.routes';
import { keysRoutes } from './routes/keys.routes';
import { usersRoutes } from './routes/users.routes';

export interface AppDeps extends TxDeps {
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  usage: UsageTracker;
  /** The account pages under /account. */
  pages?: (router: Router) => void;
}

/** The users-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    health: deps.health,
    routes: (router) => {
      usersRoutes(router, deps);
      keysRoutes(router, deps);
    },
    pages: deps.pages,
    internal: (router) => internalRoutes(router, deps.sql, deps.usage),
  });
}
