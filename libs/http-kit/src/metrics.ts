import type { RequestHandler } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Tally } from './tally';

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export type RecordRequest = (method: string, route: string, status: number, seconds: number) => void;

/** Request count and latency by method, route template and status. */
export function requestRecorder(registry: Registry): RecordRequest {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Tally({ name: 'http_requests_total', help: 'HTTP requests', labelNames, registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const labelsOf = labelCache();
  return (method, route, status, seconds) => {
    const labels = labelsOf(method, route, status);
    requests.inc(labels);
    duration.observe(labels, seconds);
  };
}

type RequestLabels = Readonly<Record<'method' | 'route' | 'status', string>>;

/**
 * One label object per method, route and status, made the first time they are seen: the tally's
 * key, and nothing made per request. Bounded: node's parser knows a fixed set of methods, routes
 * are templates (or `unmatched`), statuses are three digits.
 */
function labelCache(): (method: string, route: string, status: number) => RequestLabels {
  const byMethod = new Map<string, Map<string, Map<number, RequestLabels>>>();
  return (method, route, status) => {
    let byRoute = byMethod.get(method);
    if (!byRoute) byMethod.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let labels = byStatus.get(status);
    if (!labels) byStatus.set(status, (labels = Object.freeze({ method, route, status: String(status) })));
    return labels;
  };
}

/** {@link requestRecorder} for express, labelled by the matched route. */
export function httpMetrics(registry: Registry): RequestHandler {
  const record = requestRecorder(registry);
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () =>
      record(req.method, routeOf(req), res.statusCode, (performance.now() - started) / 1000),
    );
    next();
  };
}

/** The route template (`/api/v1/posts/:id`), never the raw path, so label cardinality stays bounded. */
export function routeOf(req: { baseUrl?: string; route?: { path?: unknown } }): string {
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : 'unmatched';
}
