export { activeTraceparent, contextOf, traceFields, tracer } from './context';
export { otlpProtocol, tracingWanted } from './settings';
export { startTracing, stopTracing, tracingOn, type TracingOptions } from './start';
