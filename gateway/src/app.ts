import type { RequestListener } from 'node:http';
import express, { Router } from 'express';
import {
  errorHandler,
  logAccess,
  mountHealth,
  notFound,
  PROBE_PATHS,
  requestRecorder,
  takeRequestId,
  type HealthOptions,
} from '@community/http-kit';
import type { Logger } from '@community/logging';
import { docsRouter } from './docs/docs-page';
import { publishedDocument } from './docs/openapi-document';
import { gateway, type Exchange, type GatewayDeps } from './gateway';
import { clientIpOf, type TrustProxy } from './http/client-ip';
import { sendError } from './http/respond';

export interface GatewayAppDeps extends Omit<GatewayDeps, 'openapi' | 'trustsForwarded'> {
  logger: Logger;
  health: HealthOptions;
  trustProxy: TrustProxy;
}

const isDocsPage = (path: string) => path === '/docs' || path.startsWith('/docs/');

/**
 * The gateway's request listener. Every API request goes through the gateway pipeline on bare
 * node:http — on the proxied hot path express's router cost ~8% of the gateway's CPU — while the
 * probes and the docs page (no key, no limits: see docs/docs-page.ts) are a small express app.
 */
export function buildApp(deps: GatewayAppDeps): RequestListener {
  const { logger } = deps;
  const ops = express();
  ops.disable('x-powered-by');
  ops.disable('etag');
  const probes = Router();
  mountHealth(probes, deps.health);
  ops.use(probes);
  ops.use('/docs', docsRouter());
  ops.use(notFound(), errorHandler(logger));

  const pipeline = gateway({
    ...deps,
    openapi: publishedDocument(),
    trustsForwarded: deps.trustProxy !== false,
  });
  const record = requestRecorder(deps.health.registry);
  const clientIp = clientIpOf(deps.trustProxy);

  return (req, res) => {
    const started = performance.now();
    const requestId = takeRequestId(req, res);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const exchange: Exchange = {
      requestId,
      path: query === -1 ? url : url.slice(0, query),
      route: 'unmatched',
      clientIp: clientIp(req),
    };
    res.once('finish', () => {
      const durationMs = performance.now() - started;
      const method = req.method ?? 'GET';
      record(method, exchange.route, res.statusCode, durationMs / 1000);
      logAccess(logger, { method, ...exchange, status: res.statusCode, durationMs });
    });

    const docs = isDocsPage(exchange.path);
    if (docs || PROBE_PATHS.has(exchange.path)) {
      exchange.route = docs ? '/docs' : exchange.path;
      ops(req, res);
      return;
    }
    pipeline(req, res, exchange).catch((err: unknown) =>
      sendError(req, res, err, logger, { method: req.method ?? 'GET', path: exchange.path, requestId }),
    );
  };
}
