import type { RequestHandler } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag is sampled by a timer that wakes the process: every 10 ms by default, the
  // largest part of an idle service's CPU. Every 100 ms, a stall of 100 ms or more is still always
  // seen (the dashboard's lag panel), a shorter one in proportion to its length.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  return registry;
}

export type RecordRequest = (method: string, route: string, status: number, seconds: number) => void;

type RequestLabel = 'http_route' | 'http_request_method' | 'http_response_status_code';
type RequestLabels = Readonly<Record<RequestLabel, string>>;

/** 0.3 s is the latency SLO's threshold (DESIGN.md §15): a bucket ends there, so the rule reads it exactly. */
const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.3, 0.5, 1, 2.5, 5, 10];

/**
 * `http_server_request_duration_seconds` by route template, method and status (DESIGN.md §15): the
 * histogram's count is the request count, so no counter beside it.
 */
export function requestRecorder(registry: Registry): RecordRequest {
  const duration = new Histogram<RequestLabel>({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP server request duration',
    labelNames: ['http_route', 'http_request_method', 'http_response_status_code'],
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [registry],
  });
  const labelsOf = labelCache();
  return (method, route, status, seconds) => duration.observe(labelsOf(method, route, status), seconds);
}

/**
 * One label object per method, route and status, made the first time they are seen: nothing made
 * per request. Bounded: node's parser knows a fixed set of methods, routes are templates (or
 * `unmatched`), statuses are three digits.
 */
function labelCache(): (method: string, route: string, status: number) => RequestLabels {
  const byMethod = new Map<string, Map<string, Map<number, RequestLabels>>>();
  return (method, route, status) => {
    let byRoute = byMethod.get(method);
    if (!byRoute) byMethod.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let labels = byStatus.get(status);
    if (!labels)
      byStatus.set(
        status,
        (labels = Object.freeze({
          http_route: tableTemplate(route),
          http_request_method: method,
          http_response_status_code: String(status),
        })),
      );
    return labels;
  };
}

/**
 * The template as the operation tables write it (`/api/v1/posts/{id}`), whichever spelling the router
 * used (express's `:id`): a route is the same label value at the gateway and at its service.
 */
const tableTemplate = (route: string) => route.replace(/:(\w+)/g, '{$1}');

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
