import type { Express } from 'express';
import { createServiceApp, type HealthOptions, type IdempotencyOptions } from '@community/http-kit';
import type { Logger } from '@community/logging';
import { webhooksRoutes, type WebhooksRouteDeps } from './routes/webhooks.routes';

export interface AppDeps extends WebhooksRouteDeps {
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  /** `Idempotency-Key` on the POSTs (DESIGN.md §10). */
  idempotency: IdempotencyOptions;
  /** PUBLIC_BASE_URL, for the pagination links. */
  publicBaseUrl?: string;
}

/** The webhook-service HTTP app; it never listens itself, so tests can mount it on port 0. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    internalToken: deps.internalToken,
    health: deps.health,
    publicBaseUrl: deps.publicBaseUrl,
    idempotency: deps.idempotency,
    routes: (router) => webhooksRoutes(router, deps),
  });
}
