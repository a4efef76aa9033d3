import type { Express, Router } from 'express';
import type { TxDeps } from '@community/events';
import { createServiceApp, type HealthOptions, type ServiceAppOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import type { UsageTracker } from './domain/keys/usage-tracker';
import type { OAuthSettings } from './domain/oauth/oauth-server';
import { avatarRoutes } from './routes/avatars.routes';
import { internalRoutes } from './routes/internal.routes';
import { keysRoutes } from './routes/keys.routes';
import { oauthAppsRoutes } from './routes/oauth-apps.routes';
import { metadataEndpoint, revocationEndpoint, tokenEndpoint } from './routes/oauth-protocol.routes';
import { usersRoutes } from './routes/users.routes';

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

/** The OAuth protocol endpoints: their own paths, form bodies, RFC wire formats. */
export function protocolMounts(deps: AppDeps): NonNullable<ServiceAppOptions['mounts']> {
  return [
    { path: '/api/v1/oauth/token', body: 'form', routes: (router) => tokenEndpoint(router, deps) },
    { path: '/api/v1/oauth/revoke', body: 'form', routes: (router) => revocationEndpoint(router, deps) },
    {
      path: '/.well-known/oauth-authorization-server',
      body: 'none',
      routes: (router) => metadataEndpoint(router, deps),
    },
    { path: '/avatars', body: 'none', routes: avatarRoutes },
  ];
}

/** The users-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    health: deps.health,
    publicBaseUrl: deps.publicBaseUrl,
    routes: (router) => {
      usersRoutes(router, deps);
      keysRoutes(router, deps);
      oauthAppsRoutes(router, deps);
    },
    mounts: protocolMounts(deps),
    pages: deps.pages,
    internal: (router) => internalRoutes(router, deps.sql, deps.usage),
  });
}
