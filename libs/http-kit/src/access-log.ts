import { context } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { Logger } from '@community/logging';
import { PROBE_PATHS } from './health';
import { routeOf } from './metrics';
import { requestIdField } from './request-id';

export interface AccessEntry {
  method: string;
  route: string;
  path: string;
  status: number;
  durationMs: number;
  accountId?: number;
  requestId?: string;
  /** The request's trace, where the caller knows it explicitly (the gateway). */
  trace?: { trace_id: string; span_id: string };
}

/**
 * One line per request: method, route, status, duration, account — never headers or bodies.
 * Probe and scrape requests log at debug, so orchestrator polling does not drown the real traffic.
 */
export function logAccess(logger: Logger, entry: AccessEntry): void {
  const level = PROBE_PATHS.has(entry.path) && entry.status < 500 ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      method: entry.method,
      route: entry.route,
      path: entry.path,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 10) / 10,
      ...(entry.accountId ? { account_id: entry.accountId } : {}),
      ...(entry.requestId ? { request_id: entry.requestId } : {}),
      ...entry.trace,
    },
    'request',
  );
}

/** {@link logAccess} for express; the account comes from `res.locals.actor`. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // Bound to the request's trace: 'finish' fires in the context of whoever wrote to the socket last.
    const inRequest = context.active();
    res.on(
      'finish',
      context.bind(inRequest, () => {
        // Every access line is info or debug: a logger above info writes none, so nothing is gathered.
        if (!logger.isLevelEnabled('info')) return;
        const actor = res.locals.actor as { userId?: number } | null | undefined;
        logAccess(logger, {
          method: req.method,
          route: routeOf(req),
          path: req.path,
          status: res.statusCode,
          durationMs: performance.now() - started,
          accountId: actor?.userId,
          requestId: requestIdField(res.locals).request_id,
        });
      }),
    );
    next();
  };
}
