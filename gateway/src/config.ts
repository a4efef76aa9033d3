import { z } from 'zod';
import { PLANS } from '@community/contracts';
import {
  baseEnv,
  DEFAULT_AMQP_URL,
  DEFAULT_EXCHANGE,
  DEFAULT_REDIS_URL,
  emptyAsUndefined,
  intVar,
  loadConfig,
  parseConfig,
  portVar,
  shutdownDelayVar,
  urlVar,
} from '@community/config';

import type { AllowedOrigins } from './http/cors';

const upstream = (port: number) => urlVar(['http', 'https'], `http://127.0.0.1:${port}`);

export const gatewayConfigSchema = z.object({
  ...baseEnv,
  GATEWAY_PORT: portVar(8080),
  REDIS_URL: urlVar(['redis', 'rediss'], DEFAULT_REDIS_URL),
  /** Key prefix for every limiter key, so several deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z.string().default('cp:'),
  AMQP_URL: urlVar(['amqp', 'amqps'], DEFAULT_AMQP_URL),
  AMQP_EXCHANGE: z.string().default(DEFAULT_EXCHANGE),
  POSTS_SERVICE_URL: upstream(3001),
  USERS_SERVICE_URL: upstream(3002),
  WEBHOOK_SERVICE_URL: upstream(3003),
  ANON_HOURLY_LIMIT: intVar(60, 1),
  ANON_DAILY_LIMIT: intVar(600, 1),
  /** The account pages and /docs: their own budget per address, apart from the API's anonymous one. */
  PAGES_HOURLY_LIMIT: intVar(600, 1),
  /** How many gateways share the Redis budget: each one's in-memory fallback allows budget ÷ replicas. */
  GATEWAY_REPLICAS: intVar(1, 1),
  /** How long a resolved key (or an unknown one) is trusted without asking users-service again. */
  KEY_CACHE_TTL_SECONDS: intVar(30, 0),
  UPSTREAM_TIMEOUT_MS: intVar(10_000, 100),
  /** How long requests wait on a silent service before it is probed (and, if it is hung, failed fast). */
  UPSTREAM_STALL_MS: intVar(1_000, 100),
  /** How long a request may wait for a slot to its service before `503 overloaded` (DESIGN.md §18). */
  QUEUE_TIMEOUT_MS: intVar(200, 0),
  /** Requests each service may be sent at once; unset, the bound adapts to the service's latency. */
  UPSTREAM_MAX_IN_FLIGHT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  ),
  /** How long a client may take to send its request body (at most 64 KiB) before a 408. */
  BODY_TIMEOUT_MS: intVar(10_000, 100),
  /** express "trust proxy": which hops may set X-Forwarded-For (false: the socket address is the client). */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value) =>
      value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value,
    ),
  /** Origins whose browser apps may call /api/v1: `*` (any) or a comma-separated list of origins. */
  CORS_ALLOWED_ORIGINS: corsOriginsVar(),
  SHUTDOWN_GRACE_MS: intVar(10_000, 0),
  SHUTDOWN_DELAY_MS: shutdownDelayVar(),
  /** Requests one account may have in flight at once, per plan, and one address without a key. */
  IN_FLIGHT_LIMITS: inFlightLimitsVar(),
  /** The default avatars' own budget per address, per minute (they pass before keys and limits). */
  AVATARS_PER_MINUTE: intVar(1_000, 1),
});

const IN_FLIGHT_CALLERS = [...PLANS, 'anonymous'] as const;
export type InFlightLimits = Record<(typeof IN_FLIGHT_CALLERS)[number], number>;
const DEFAULT_IN_FLIGHT: InFlightLimits = { free: 8, beta: 16, pro: 32, enterprise: 128, anonymous: 8 };

/** `plan:n` pairs, comma-separated (`free:8,pro:64`); a plan not named keeps its default. */
function inFlightLimitsVar() {
  return z
    .string()
    .default('')
    .transform((value, ctx): InFlightLimits => {
      const limits = { ...DEFAULT_IN_FLIGHT };
      for (const pair of value.split(',').filter((part) => part.trim())) {
        const [name, count] = pair.split(':').map((part) => part.trim());
        const caller = IN_FLIGHT_CALLERS.find((known) => known === name);
        if (!caller || !count || !/^\d+$/.test(count) || Number(count) < 1)
          ctx.addIssue({
            code: 'custom',
            message: `"${pair}" is not <caller>:<count>, a caller of ${IN_FLIGHT_CALLERS.join(', ')} and a count ≥ 1`,
          });
        else limits[caller] = Number(count);
      }
      return limits;
    });
}

function corsOriginsVar() {
  return z
    .string()
    .default('*')
    .transform((value, ctx): AllowedOrigins => {
      const origins = value.split(',').map((origin) => origin.trim());
      if (origins.length === 1 && origins[0] === '*') return '*';
      for (const origin of origins) {
        if (!isOrigin(origin))
          ctx.addIssue({
            code: 'custom',
            message: `"${origin}" is not an origin (scheme://host[:port], no path), and * must stand alone`,
          });
      }
      return new Set(origins);
    });
}

const isOrigin = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
};

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;

const UPSTREAM_PORTS = {
  POSTS_SERVICE_URL: 'POSTS_SERVICE_PORT',
  USERS_SERVICE_URL: 'USERS_SERVICE_PORT',
  WEBHOOK_SERVICE_URL: 'WEBHOOK_SERVICE_PORT',
} as const;

/**
 * An unset upstream URL follows its service's port variable (`http://127.0.0.1:<port>`, as the README
 * documents), so `npm start` with other ports still finds the services; without one, the defaults
 * above (3001–3003) apply.
 */
export function withUpstreamDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const filled = { ...env };
  for (const [urlVar, portVar] of Object.entries(UPSTREAM_PORTS)) {
    const port = env[portVar];
    if (!env[urlVar] && port && /^\d+$/.test(port) && port !== '0')
      filled[urlVar] = `http://127.0.0.1:${port}`;
  }
  return filled;
}

export const readConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig =>
  loadConfig(gatewayConfigSchema, withUpstreamDefaults(env));
export const parseGatewayConfig = (env: NodeJS.ProcessEnv): GatewayConfig =>
  parseConfig(gatewayConfigSchema, withUpstreamDefaults(env));
