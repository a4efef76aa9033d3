import express, { Router, type Express, type RequestHandler } from 'express';
import type { Logger } from '@community/logging';
import { accessLog } from './access-log';
import { BODY_LIMIT, jsonBody } from './body';
import { conditionalRequests } from './conditional';
import { errorHandler, notFound } from './error-handler';
import { mountHealth, type HealthOptions } from './health';
import { verifyIdentity } from './identity';
import { idempotentPosts, type IdempotencyOptions } from './idempotency';
import { httpMetrics } from './metrics';
import { requestId } from './request-id';

/**
 * What every service's `buildApp(deps)` takes for the shared app: its start fills these from the
 * config and the data runtime, and the service's own fields sit beside them.
 */
export interface ServiceAppDeps {
  logger: Logger;
  internalToken: string;
  /** INTERNAL_TOKEN_PREVIOUS: also accepted while a rotation goes on. */
  internalTokenPrevious?: string;
  health: HealthOptions;
  /** `Idempotency-Key` on the POSTs (DESIGN.md §10). */
  idempotency: IdempotencyOptions;
  /**
   * PUBLIC_BASE_URL: the origin of absolute URLs in answers (pagination links, default avatars), else
   * the request's host; see publicBase.
   */
  publicBaseUrl?: string;
}

export interface ServiceAppOptions extends Omit<ServiceAppDeps, 'idempotency'> {
  /** Mounts the service's routes on a router served under `/api/v1`. */
  routes: (router: Router) => void;
  /** Server-rendered pages under `/account`: form bodies instead of JSON. */
  pages?: (router: Router) => void;
  /** Endpoints for the gateway only under `/internal` (the gateway never routes that path). */
  internal?: (router: Router) => void;
  /**
   * Routers mounted ahead of `/api/v1` at their own path, with HTML-form bodies or none: protocol
   * endpoints whose wire format is not ours, such as OAuth's token endpoint (RFC 6749 §4.1.3). Each
   * answers its own errors.
   */
  mounts?: { path: string; body: 'form' | 'none'; routes: (router: Router) => void }[];
  /**
   * `Idempotency-Key` on the POSTs under `/api/v1` (DESIGN.md §10); the protocol mounts, pages and
   * internal routes have none.
   */
  idempotency?: IdempotencyOptions;
}

/**
 * A service's app from its deps: the shared fields of ServiceAppDeps picked out, and its routes under
 * `/api/v1`, and its internal routes under `/internal` if any. Pages and protocol mounts go through
 * createServiceApp itself.
 */
export function serviceAppFor(
  deps: ServiceAppDeps,
  routes: (router: Router) => void,
  internal?: (router: Router) => void,
): Express {
  const { logger, internalToken, internalTokenPrevious, health, idempotency, publicBaseUrl } = deps;
  return createServiceApp({
    ...{ logger, internalToken, internalTokenPrevious, health, idempotency, publicBaseUrl },
    ...{ routes, internal },
  });
}

/**
 * The express app every service shares: request id, metrics, access log, health, gateway-signed
 * identity, strict JSON bodies, the service's routes, 404/405 and the one error mapper.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const {
    logger,
    internalToken,
    internalTokenPrevious,
    health,
    routes,
    pages,
    internal,
    mounts = [],
  } = options;
  const app = express();
  app.disable('x-powered-by');
  // A strong ETag over the bytes sent, and 304 for a matching If-None-Match (DESIGN.md §10).
  conditionalRequests(app);
  app.set('trust proxy', true);
  app.set('query parser', 'simple');
  app.locals.publicBaseUrl = options.publicBaseUrl;

  app.use(requestId());
  app.use(httpMetrics(health.registry));
  app.use(accessLog(logger));

  // On the app itself: a nested router would be entered and left by every request on its way.
  mountHealth(app, health);

  const mount = (path: string, body: RequestHandler[], register: (router: Router) => void) => {
    const router = Router();
    router.use(verifyIdentity(internalToken, internalTokenPrevious));
    if (body.length > 0) router.use(body);
    register(router);
    app.use(path, router);
  };
  const formBody = express.urlencoded({ extended: false, limit: BODY_LIMIT });
  for (const extra of mounts) mount(extra.path, extra.body === 'form' ? [formBody] : [], extra.routes);
  const idempotent = options.idempotency ? [idempotentPosts(options.idempotency)] : [];
  mount('/api/v1', [...jsonBody(), ...idempotent], routes);
  if (pages) mount('/account', [formBody], pages);
  if (internal) mount('/internal', jsonBody(), internal);

  app.use(notFound());
  app.use(errorHandler(logger));
  return app;
}
