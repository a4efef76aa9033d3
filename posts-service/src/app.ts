import type { Express } from 'express';
import { serviceAppFor, type ServiceAppDeps, type Slots } from '@community/http-kit';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import type { Clock } from './domain/clock';
import type { FlagStanding } from './domain/moderation/standing';
import type { ViewCounter } from './domain/posts/view-counter';
import { postsServiceRoutes } from './routes';
import { internalRoutes } from './routes/internal.routes';

export interface AppDeps extends TxDeps, ServiceAppDeps {
  views: ViewCounter;
  clock: Clock;
  /** The search pool: its connections' statements time out after SEARCH_TIMEOUT_MS (db/search.ts). */
  searchSql: Sql;
  /** Where searches wait for one of the SEARCH_CONCURRENCY slots. */
  searches: Slots;
  /** How old an account must be for its flags to count towards hiding (FLAG_MIN_ACCOUNT_AGE_HOURS). */
  flagStanding: FlagStanding;
}

/** The posts-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return serviceAppFor(
    deps,
    (router) => postsServiceRoutes(router, deps),
    (router) => internalRoutes(router, deps),
  );
}
