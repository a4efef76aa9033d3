import type { RequestHandler } from 'express';
import type { Logger } from '@community/logging';
import { routeOf } from './metrics';
import { requestIdField } from './request-id';

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One line per request: method, route, status, duration, account — never headers or bodies.
 * Probe and scrape requests log at debug, so orchestrator polling does not drown the real traffic.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const actor = res.locals.actor as { userId?: number } | null | undefined;
      const level = PROBES.has(req.path) && res.statusCode < 500 ? 'debug' : 'info';
      logger[level](
        {
          method: req.method,
          route: routeOf(req),
          path: req.path,
          status: res.statusCode,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          ...(actor?.userId ? { account_id: actor.userId } : {}),
          ...requestIdField(res.locals),
        },
        'request',
      );
    });
    next();
  };
}
