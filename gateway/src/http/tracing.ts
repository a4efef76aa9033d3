import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { tracer, tracingOn } from '@community/telemetry';

/** The request's trace and span, for its log lines. */
export interface TraceFields {
  trace_id: string;
  span_id: string;
}

/** Each traced request's server span context, for the call to the service it makes. */
const spans = new WeakMap<IncomingMessage, Context>();

/**
 * The gateway's spans, made by hand rather than by the http and undici instrumentations, which wrap
 * every request and socket of the hot path (docs/decisions.md, "Tracing the gateway by hand";
 * bench/RESULTS.md has both costs). The gateway registers no context manager, whose
 * `AsyncLocalStorage` would hook every promise: each span's context is handed on explicitly.
 * Nothing here runs while tracing is off.
 *
 * The server span continues the client's `traceparent` (its sampled flag decides, through the
 * parent-based sampler) or starts a trace; it is named `{method} {route template}` once the route is
 * known, and ends when the answer is closed.
 */
export function serverSpan(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  route: () => string,
): TraceFields | undefined {
  if (!tracingOn()) return undefined;
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer().startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' },
    },
    parent,
  );
  res.once('close', () => {
    const template = route();
    span.updateName(`${method} ${template}`);
    span.setAttribute('http.route', template);
    if (res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
    if (!res.writableFinished || res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  spans.set(req, trace.setSpan(parent, span));
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * The call to a service, as a client span of the request's server span, its context written into
 * the headers sent (the client's own `traceparent` is replaced). Null while tracing is off.
 */
export function upstreamSpan(
  req: IncomingMessage,
  target: string,
  headers: Record<string, unknown>,
): Span | null {
  const parent = spans.get(req);
  if (!parent) return null;
  const method = req.method ?? 'GET';
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, ...serverOf(target) } },
    parent,
  );
  delete headers.traceparent;
  delete headers.tracestate;
  propagation.inject(trace.setSpan(parent, span), headers);
  return span;
}

/** The upstream's address attributes, parsed once per service. */
const servers = new Map<string, { 'server.address': string; 'server.port': number }>();
function serverOf(target: string) {
  let server = servers.get(target);
  if (!server) {
    const { hostname, port } = new URL(target);
    servers.set(target, (server = { 'server.address': hostname, 'server.port': Number(port) }));
  }
  return server;
}
