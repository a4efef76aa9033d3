import type { Express } from 'express';
import {
  createServiceApp,
  type HealthOptions,
  type IdempotencyOptions,
  type Slots,
} from '@community/http-kit';
import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import type { TxDeps } from '@community/events';
import type { Clock } from './domain/clock';
import type { FlagStanding } from './domain/moderation/standing';
import type { ViewCounter } from './domain/posts/view-counter';
import { postsServiceRoutes } from './routes';

export interface AppDeps extends TxDeps {
  views: ViewCounter;
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  /** `Idempotency-Key` on the POSTs (DESIGN.md §10). */
  idempotency: IdempotencyOptions;
  clock: Clock;
  /** The search pool: its connections' statements time out after SEARCH_TIMEOUT_MS (db/search.ts). */
  searchSql: Sql;
  /** Where searches wait for one of the SEARCH_CONCURRENCY slots. */
  searches: Slots;
  /** How old an account must be for its flags to count towards hiding (FLAG_MIN_ACCOUNT_AGE_HOURS). */
  flagStanding: FlagStanding;
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
    idempotency: deps.idempotency,
    routes: (router) => postsServiceRoutes(router, deps),
  });
}
