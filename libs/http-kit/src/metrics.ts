import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (method, route, status, seconds) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, seconds);
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
