import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** Parses `env` with `schema`; every bad variable becomes one line `NAME: problem`. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.map(String).join('.') || 'environment';
      const value = issue.path.length ? env[String(issue.path[0])] : undefined;
      return value === undefined || value === ''
        ? `${name}: is required (${issue.message})`
        : `${name}: ${issue.message}`;
    });
    throw new ConfigError([...new Set(problems)]);
  }
  return Object.freeze(result.data);
}

/** parseConfig for a process start: prints one line per bad variable and exits 1. */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.output<S>> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const line of err.problems) process.stderr.write(`configuration error: ${line}\n`);
    process.exit(1);
  }
}

/**
 * A variable set to the empty string counts as unset (`FOO=` in an env file, `\${FOO:-}` in compose):
 * for `z.preprocess`, before the default or the check.
 */
export const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

/** A URL whose protocol is one of `protocols`, with a default. */
export function urlVar(protocols: string[], fallback: string) {
  return z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default(fallback)
      .refine(
        (value) => {
          try {
            return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        },
        `must be a ${protocols.join(' or ')} URL`,
      ),
  );
}

/**
 * PUBLIC_BASE_URL: the origin clients reach the platform at (e.g. `https://api.example.com`), for
 * absolute URLs in answers. Optional: unset, each answer uses the scheme and `Host` its request came
 * in with (as the gateway forwards them). Trailing slashes are dropped.
 */
export function publicBaseUrlVar() {
  return z.preprocess(
    emptyAsUndefined,
    z
      .url({
        protocol: /^https?$/,
        message: 'must be an absolute http(s) URL such as https://api.example.com',
      })
      .refine((value) => {
        if (!URL.canParse(value)) return true; // already refused above: one line per variable
        const url = new URL(value);
        return url.search === '' && url.hash === '' && url.username === '' && url.password === '';
      }, 'must be an origin and optional path, without query, fragment or credentials')
      .transform((value) => value.replace(/\/+$/, ''))
      .optional(),
  );
}

export function portVar(fallback: number) {
  return z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int('must be a whole number')
      .min(0, 'must be a port between 0 and 65535')
      .max(65535, 'must be a port between 0 and 65535')
      .default(fallback),
  );
}

export function intVar(fallback: number, min = 0) {
  return z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(min, `must be at least ${min}`).default(fallback),
  );
}

export function boolVar(fallback: boolean) {
  return z.preprocess(
    emptyAsUndefined,
    z
      .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1'),
  );
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/community';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
export const DEFAULT_EXCHANGE = 'community.events';

/** Variables every service reads (DESIGN.md §2). */
export const baseEnv = {
  NODE_ENV: z.preprocess(
    emptyAsUndefined,
    z
      .enum(['development', 'production', 'test'], { message: 'must be development, production or test' })
      .default('development'),
  ),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
  ),
  INTERNAL_TOKEN: z
    .string({ message: 'must be set to the secret shared by the gateway and the services' })
    .min(16, 'must be at least 16 characters'),
  /** During a rotation (docs/operations.md): the token signatures are also accepted with; never signs. */
  INTERNAL_TOKEN_PREVIOUS: z.preprocess(
    emptyAsUndefined,
    z.string().min(16, 'must be at least 16 characters').optional(),
  ),
};

/** Variables of a service that owns a schema and speaks to the event bus. */
export const dataServiceEnv = {
  ...baseEnv,
  DATABASE_URL: urlVar(['postgres', 'postgresql'], DEFAULT_DATABASE_URL),
  AMQP_URL: urlVar(['amqp', 'amqps'], DEFAULT_AMQP_URL),
  AMQP_EXCHANGE: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be letters, digits, dots, dashes or underscores')
      .default(DEFAULT_EXCHANGE),
  ),
  DB_POOL_MAX: intVar(10, 1),
  SHUTDOWN_GRACE_MS: intVar(10_000, 0),
  SHUTDOWN_DELAY_MS: shutdownDelayVar(),
  /** The address a service listens on: loopback unless a container must be reached from outside. */
  SERVICE_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
  PUBLIC_BASE_URL: publicBaseUrlVar(),
};

/**
 * SHUTDOWN_DELAY_MS: how long a process stopping keeps serving, `/readyz` already 503, before it
 * stops accepting (DESIGN.md §16). Unset: {@link shutdownDelayMs} picks 5 s in production, none elsewhere.
 */
export function shutdownDelayVar() {
  return z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(0, 'must be at least 0').optional(),
  );
}

/** The delay a process stopping serves on: long enough in production for load balancers to catch up. */
export function shutdownDelayMs(config: { NODE_ENV?: string; SHUTDOWN_DELAY_MS?: number }): number {
  return config.SHUTDOWN_DELAY_MS ?? (config.NODE_ENV === 'production' ? 5_000 : 0);
}

/** The URL with any password masked, fit for a log line or an error message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

/** PostgreSQL's codes for a login it refused: a wrong password (28P01), a role that may not log in. */
const REFUSED_LOGIN = new Set(['28P01', '28000']);

/**
 * The one line a service prints when a dependency is down at start: which URL, and which variable
 * names it. How to start the dependency is the machine's business (`npm start` says it).
 */
export function unreachableError(what: string, url: string, err: unknown, variable: string): Error {
  const reason =
    (err as { code?: string } | null)?.code ?? (err instanceof Error ? err.message : String(err));
  if (REFUSED_LOGIN.has(reason)) {
    return new Error(
      `${what} at ${redactUrl(url)} refused the login (${reason}); check the user and password in ${variable}`,
    );
  }
  return new Error(
    `${what} is not reachable at ${redactUrl(url)} (${reason}); check that it is running and that ${variable} points at it`,
  );
}
