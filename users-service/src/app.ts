import type { Express } from 'express';
import { createServiceApp } from '@community/http-kit';
import type { AppDeps } from './app-deps';
import { sessionOwner } from './routes/session';
import { internalRoutes } from './routes/internal.routes';
import { protocolMounts, usersServiceRoutes } from './routes';

/** The users-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    internalTokenPrevious: deps.internalTokenPrevious,
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
