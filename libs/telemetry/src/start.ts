import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { SafeAttributes } from './safe-attributes';
import { otlpProtocol, tracingWanted } from './settings';

/** Paths no span is made for: probes and scrapes would drown the traces that matter. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export interface TracingOptions {
  /**
   * True for the data services: HTTP server spans from the maintained http and express
   * instrumentations. The gateway makes its own server and upstream spans (docs/decisions.md,
   * "Tracing the gateway by hand").
   */
  httpServer: boolean;
  /**
   * False for the gateway: no context manager, so no `AsyncLocalStorage` hooks every promise of
   * its hot path; it hands each span's context on explicitly instead (gateway/src/http/tracing.ts).
   * Nothing is ever active then, so no Redis command is a span (the ioredis instrumentation is not
   * registered).
   */
  activeContext?: boolean;
}

let provider: NodeTracerProvider | null = null;

/**
 * Starts tracing for `service` when the standard `OTEL_*` variables ask for it, and does nothing
 * otherwise. Call it before anything loads express, ioredis or amqplib: the instrumentations patch
 * those modules as they are first required (each service's `tracing.ts`, imported first by main).
 */
export function startTracing(service: string, { httpServer, activeContext = true }: TracingOptions): void {
  if (provider || !tracingWanted()) return;
  // The stable HTTP conventions: `http.request.method`, `http.response.status_code`, `url.path`.
  process.env.OTEL_SEMCONV_STABILITY_OPT_IN ??= 'http';
  const exporter = otlpProtocol() === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  provider = new NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the env detector, win over the default.
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new SafeAttributes(), new BatchSpanProcessor(exporter)],
  });
  provider.register(activeContext ? {} : { contextManager: null });
  registerInstrumentations({ instrumentations: instrumentations(httpServer, activeContext) });
}

function instrumentations(httpServer: boolean, activeContext: boolean): Instrumentation[] {
  const always: Instrumentation[] = [
    // A consumed message's span continues the trace its headers carry, with or without an active
    // context: the gateway's cache invalidations are spans of the write that caused them.
    new AmqplibInstrumentation(),
  ];
  // A Redis command is a span only inside one (a parent span active): a process without a context
  // manager never has one, and the instrumentation would only wrap each of its commands for nothing.
  if (activeContext)
    always.push(
      // The command's name only: arguments hold keys, counters and whatever was cached.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command, requireParentSpan: true }),
    );
  if (!httpServer) return always;
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => PROBES.has((req.url ?? '').split('?')[0]!),
      // The services' only outgoing HTTP calls are webhook deliveries, and a receiver is never sent
      // the trace context (DESIGN.md §15): the delivery attempt is a span of our own.
      ignoreOutgoingRequestHook: () => true,
    }),
    // Names the server span by its route; a span per middleware would only add noise.
    new ExpressInstrumentation({
      ignoreLayersType: [
        ExpressLayerType.MIDDLEWARE,
        ExpressLayerType.ROUTER,
        ExpressLayerType.REQUEST_HANDLER,
      ],
    }),
    ...always,
  ];
}

/** Exports what is still buffered; called as the process stops. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = null;
  await stopping?.shutdown().catch(() => {});
}

export const tracingOn = (): boolean => provider !== null;
