import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from '@community/telemetry';
import type { Sql, Tx } from './client';

/**
 * postgres.js has no OpenTelemetry instrumentation, so this makes the spans (DESIGN.md §15): one
 * per statement, named `{operation} {table}`, with the operation, table and schema as attributes —
 * never the statement's parameters. Only used while tracing is on (createDb), so it costs nothing
 * otherwise. A statement's span starts when it is first awaited (postgres.js sends it then) and
 * ends when it settles; transactions hand their callback a traced `tx` too. Statements outside any
 * trace (the relay's and the dispatcher's polling, sweepers) make no span: they would bury the
 * traces that matter under thousands of one-span ones.
 */
export function traced<S extends Sql | Tx>(sql: S, schema: string): S {
  return new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      const query: unknown = Reflect.apply(target as never, self, args);
      return isTemplate(args[0]) ? traceQuery(query, args[0][0] ?? '', schema) : query;
    },
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe') {
        return (text: string, ...rest: unknown[]) =>
          traceQuery(Reflect.apply(value, target, [text, ...rest]), text, schema);
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const work = args.pop() as (tx: Tx) => unknown;
          return Reflect.apply(value, target, [...args, (tx: Tx) => work(traced(tx, schema))]);
        };
      }
      return value;
    },
  });
}

const isTemplate = (value: unknown): value is TemplateStringsArray => Array.isArray(value) && 'raw' in value;

type Thenable = { then: (onFulfilled?: unknown, onRejected?: unknown) => unknown };

function traceQuery(query: unknown, text: string, schema: string): unknown {
  if (!query || typeof (query as Thenable).then !== 'function') return query;
  const thenable = query as Thenable;
  const then = thenable.then;
  let span: Span | undefined;
  thenable.then = function (onFulfilled?: unknown, onRejected?: unknown) {
    if (!span && trace.getSpan(context.active())) {
      const started = (span = startSpan(text, schema));
      then.call(
        this,
        () => started.end(),
        (err: unknown) => {
          started.setStatus({ code: SpanStatusCode.ERROR });
          const code = (err as { code?: unknown } | null)?.code;
          if (typeof code === 'string') started.setAttribute('db.response.status_code', code);
          started.end();
        },
      );
    }
    return then.call(this, onFulfilled, onRejected);
  };
  return query;
}

function startSpan(text: string, schema: string): Span {
  const { operation, table } = describe(text);
  return tracer().startSpan(table ? `${operation} ${table}` : operation, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'postgresql',
      'db.namespace': schema,
      'db.operation.name': operation,
      ...(table ? { 'db.collection.name': table } : {}),
    },
  });
}

/** The statement's first keyword and the first table it reads or writes, from its text alone. */
export function describe(text: string): { operation: string; table?: string } {
  const operation = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update|join)\s+((?:"?[a-z_][a-z0-9_]*"?\.)?"?[a-z_][a-z0-9_]*"?)/i
    .exec(text)?.[1]
    ?.replace(/"/g, '');
  return table ? { operation, table } : { operation };
}
