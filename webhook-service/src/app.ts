import type { Express } from 'express';
import { serviceAppFor, type ServiceAppDeps } from '@community/http-kit';
import { internalRoutes } from './routes/internal.routes';
import { webhooksRoutes, type WebhooksRouteDeps } from './routes/webhooks.routes';

export type AppDeps = WebhooksRouteDeps & ServiceAppDeps;

/** The webhook-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return serviceAppFor(
    deps,
    (router) => webhooksRoutes(router, deps),
    (router) => internalRoutes(router, deps),
  );
}
