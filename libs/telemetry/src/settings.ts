/**
 * Whether this process traces, from the standard variables alone (DESIGN.md §15): an OTLP endpoint
 * must be set, and `OTEL_SDK_DISABLED` or `OTEL_TRACES_EXPORTER=none` turn it off. Without an
 * endpoint nothing is registered, so no span, context or exporter costs anything.
 */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`; gRPC is not offered (no gRPC stack in the images). */
export function otlpProtocol(env: NodeJS.ProcessEnv = process.env): OtlpProtocol {
  const value = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not ${JSON.stringify(value)}`,
  );
}
