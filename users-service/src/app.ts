import type { Express, Router } from 'express';
import type { TxDeps } from '@community/events';
import { createServiceApp, type HealthOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { UsageTracker } from './domain/keys/usage-tracker';
import type { OAuthSettings } from './domain/oauth/oauth-server';
import { internalRoutes } from './routes/internal.routes';
import { protocolMounts, usersServiceRoutes } from './routes';

export interface AppDeps extends TxDeps {
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  usage: UsageTracker;
  oauth: OAuthSettings;
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
    routes: (router) => usersServiceRoutes(router, deps),
    mounts: protocolMounts(deps),
    pages: deps.pages,
    internal: (router) => internalRoutes(router, deps),
  });
}
