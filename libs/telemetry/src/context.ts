import { context, propagation, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';

/**
 * The tracer every hand-made span of this repository comes from. Asked for once: the API's proxy
 * finds the SDK's tracer once tracing starts and keeps it, where `trace.getTracer` would look it up
 * in the provider's table (a key string built) at every span.
 */
const communityTracer = trace.getTracer('community-platform');
export const tracer = () => communityTracer;

/**
 * The W3C `traceparent` of the active span, to store beside work that continues later (an outbox
 * row, a webhook delivery); undefined when nothing is traced.
 */
export function activeTraceparent(): string | undefined {
  if (!trace.getSpanContext(context.active())) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a stored `traceparent` continues (the root context when there is none). */
export function contextOf(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** `trace_id` and `span_id` of the active span, for a log line; empty when nothing is traced. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpanContext(context.active());
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
