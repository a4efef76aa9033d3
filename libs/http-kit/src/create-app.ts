import express, { Router, type Express } from 'express';
import type { Logger } from '@community/logging';
import { accessLog } from './access-log';
import { jsonBody } from './body';
import { errorHandler, notFound } from './error-handler';
import { mountHealth, type HealthOptions } from './health';
import { verifyIdentity } from './identity';
import { httpMetrics } from './metrics';
import { requestId } from './request-id';

export interface ServiceAppOptions {
  logger: Logger;
  internalToken: string;
  health: HealthOptions;
  /** Mounts the service's routes on a router served under `/api/v1`. */
  routes: (router: Router) => void;
}

/**
 * The express app every service shares: request id, metrics, access log, health, gateway-signed
 * identity, strict JSON bodies, the service's routes, 404/405 and the one error mapper.
 */
export function createServiceApp({ logger, internalToken, health, routes }: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', true);
  app.set('query parser', 'simple');

  app.use(requestId());
  app.use(httpMetrics(health.registry));
  app.use(accessLog(logger));

  const ops = Router();
  mountHealth(ops, health);
  app.use(ops);

  const api = Router();
  api.use(verifyIdentity(internalToken));
  api.use(jsonBody());
  routes(api);
  app.use('/api/v1', api);

  app.use(notFound());
  app.use(errorHandler(logger));
  return app;
}
