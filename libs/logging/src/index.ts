import pino from 'pino';
import { traceFields } from '@community/telemetry';

export type Logger = pino.Logger;

/** Paths redacted wherever they appear: credentials, cookies, keys and secrets never reach a log. */
export const REDACT_PATHS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'key',
  'token',
  'apiKey',
  'api_key',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.secret',
  '*.key',
  '*.token',
  '*.apiKey',
  '*.api_key',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["x-internal-signature"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  destination?: pino.DestinationStream;
}

export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // The trace and span a line was written in, beside its request id (DESIGN.md §15).
      mixin: traceFields,
    },
    destination,
  );
}
