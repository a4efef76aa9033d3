import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Attributes no exported span keeps: a query string or full URL can carry a search, an OAuth
 * `state` or a token; header captures can carry credentials. Paths, route templates, statuses,
 * SQL operations and table names stay.
 */
const DROPPED = ['url.query', 'url.full', 'http.target', 'http.url', 'db.query.text', 'db.statement'];
const DROPPED_PREFIXES = ['http.request.header.', 'http.response.header.'];

/** Runs before the exporting processor and drops what must never leave the process. */
export class SafeAttributes implements SpanProcessor {
  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    const attributes = span.attributes as Record<string, unknown>;
    for (const key of Object.keys(attributes)) {
      if (DROPPED.includes(key) || DROPPED_PREFIXES.some((prefix) => key.startsWith(prefix))) {
        delete attributes[key];
      }
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
