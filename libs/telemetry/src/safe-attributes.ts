import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Attributes no exported span keeps: a query string or full URL can carry a search, an OAuth
 * `state` or a token; header captures can carry credentials. Paths, route templates, statuses,
 * SQL operations and table names stay.
 */
const DROPPED = new Set([
  'url.query',
  'url.full',
  'http.target',
  'http.url',
  'db.query.text',
  'db.statement',
]);
const isHeaderCapture = (key: string) =>
  key.startsWith('http.request.header.') || key.startsWith('http.response.header.');

/** Runs before the exporting processor, on every span, and drops what must never leave the process. */
export class SafeAttributes implements SpanProcessor {
  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    const attributes = span.attributes as Record<string, unknown>;
    for (const key in attributes) if (DROPPED.has(key) || isHeaderCapture(key)) delete attributes[key];
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
