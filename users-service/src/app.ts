import type { Express, Router } from 'express';
import type { TxDeps } from '@community/events';
import {
  createServiceApp,
  type HealthOptions,
  type IdempotencyOptions,
  type Slots,
} from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { UsageTracker } from './domain/keys/usage-tracker';
import type { OAuthSettings } from './domain/oauth/oauth-server';
import type { StreamHub } from './streams/hub';
import { sessionOwner } from './routes/session';
import { internalRoutes } from './routes/internal.routes';
import { protocolMounts, usersServiceRoutes } from './routes';

export interface AppDeps extends TxDeps {
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  /** `Idempotency-Key` on the POSTs (DESIGN.md §10). */
  idempotency: IdempotencyOptions;
  usage: UsageTracker;
  oauth: OAuthSettings;
  /** The notification streams this process holds. */
  streams: StreamHub;
  /** Where user lookups wait for one of the SEARCH_CONCURRENCY slots. */
  searches: Slots;
  /** PUBLIC_BASE_URL, when configured (absolute URLs in answers: pagination links, default avatars). */
  publicBaseUrl?: string;
  /** The account pages under /account. */
  pages?: (router: Router) => void;
}

/** The users-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    health: deps.health,
    publicBaseUrl: deps.publicBaseUrl,
    // The key API's session callers own their keys by account, as bearer callers do.
    idempotency: { ...deps.idempotency, anonymousOwner: (req) => sessionOwner(deps.sql, req) },
    routes: (router) => usersServiceRoutes(router, deps),
    mounts: protocolMounts(deps),
    pages: deps.pages,
    internal: (router) => internalRoutes(router, deps),
  });
}
