import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';

export type Logger = pino.Logger;

interface LogContext {
  requestId?: string;
  accountId?: number;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with a request context whose fields appear on every log line written inside it. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return context.run({ ...ctx }, fn);
}

/** The context of the current request, mutable so later middleware can add the account id. */
export function currentLogContext(): LogContext | undefined {
  return context.getStore();
}

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
      mixin() {
        const ctx = context.getStore();
        if (!ctx) return {};
        return {
          ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
          ...(ctx.accountId ? { account_id: ctx.accountId } : {}),
        };
      },
    },
    destination,
  );
}
