import express, { Router, type Express } from 'express';
import {
  accessLog,
  errorHandler,
  httpMetrics,
  mountHealth,
  notFound,
  requestId,
  type HealthOptions,
} from '@community/http-kit';
import type { Logger } from '@community/logging';
import { docsRouter } from './docs/docs-page';
import { publishedDocument } from './docs/openapi-document';
import { gateway, type GatewayDeps } from './gateway';

export interface GatewayAppDeps extends Omit<GatewayDeps, 'openapi'> {
  logger: Logger;
  health: HealthOptions;
  trustProxy: boolean | number | string;
}

/**
 * The gateway's express app: ops endpoints and the docs page, then everything else through the
 * gateway pipeline.
 */
export function buildApp(deps: GatewayAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.trustProxy);
  app.use(requestId({ logContext: false }));
  app.use(httpMetrics(deps.health.registry));
  app.use(accessLog(deps.logger));
  const ops = Router();
  mountHealth(ops, deps.health);
  app.use(ops);
  app.use('/docs', docsRouter());
  app.use(gateway({ ...deps, openapi: publishedDocument() }));
  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
