import Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { redactUrl, shutdownDelayMs } from '@community/config';
import { AmqpConnection } from '@community/events';
import { createRegistry, listen, type ReadinessCheck } from '@community/http-kit';
import { createLogger, type Logger } from '@community/logging';
import { MAX_STREAMS_PER_ACCOUNT } from '@community/contracts';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import { KeyResolver } from './auth/key-resolver';
import { UsageReporter } from './auth/usage-reporter';
import { UsersClient } from './auth/users-client';
import { subscribeToInvalidations } from './events/invalidation';
import { AvatarsBudget } from './limits/avatars-budget';
import { InFlight } from './limits/in-flight';
import { TwoWindowLimiter } from './limits/limiter';
import { createBreaker, registerBreakerMetrics, type Breaker } from './proxy/breaker';
import { registerAdmissionMetrics } from './proxy/admission';
import { Upstream } from './proxy/upstream';
import { OpenStreams } from './streams/open-streams';
import { StreamSlots } from './streams/stream-slots';

export const SERVICE = 'gateway';
/** A stream's slot lease: a replica that dies frees its streams' slots within this (DESIGN.md §13). */
const STREAM_LEASE_MS = 60_000;
/** Open streams' credentials are checked this often: a revoked key's stream closes within 5 s. */
const STREAM_RECHECK_MS = 2_000;
const VERSION = process.env.npm_package_version ?? '1.0.0';

export interface GatewayService {
  url: string;
  port: number;
  /** Every circuit breaker by the name its metric carries (posts, users, webhooks, users_keys). */
  breakers: Readonly<Record<string, Breaker>>;
  stop(): Promise<void>;
}

/**
 * Starts the gateway. Redis and RabbitMQ being down at start is not fatal: limits run in memory
 * and the key cache relies on its TTL until they come back.
 */
export async function start(
  config: GatewayConfig,
  logger: Logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL }),
): Promise<GatewayService> {
  const registry = createRegistry(SERVICE);
  const redis = await connectRedis(config, logger);
  const upstreams = upstreamsOf(config, logger);
  const { users, keys, usage, keysBreaker } = keyLookupOf(config, registry, logger);
  const breakers = [...Object.values(upstreams).map((u) => u.breaker), keysBreaker];
  registerBreakerMetrics(registry, breakers);
  registerAdmissionMetrics(registry, Object.values(upstreams));

  const amqp = new AmqpConnection({ url: config.AMQP_URL, name: SERVICE, logger });
  subscribeToInvalidations(amqp, config.AMQP_EXCHANGE, keys, logger);
  amqp.start();

  const { slots, streams } = streamsOf(config, redis, keys, registry);
  const limits = limitsOf(config, redis, registry, logger);
  let shuttingDown = false;
  const app = buildApp({
    logger,
    internalToken: config.INTERNAL_TOKEN,
    keys,
    usage,
    upstreams,
    ...limits,
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
    corsOrigins: config.CORS_ALLOWED_ORIGINS,
    streams,
    health: {
      version: VERSION,
      registry,
      isShuttingDown: () => shuttingDown,
      checks: readinessChecks(redis, amqp),
    },
  });
  const server = await listen(app, config.GATEWAY_PORT);
  logger.info({ port: server.port }, `${SERVICE} listening`);

  return {
    url: server.url,
    port: server.port,
    breakers: Object.fromEntries(breakers.map((breaker) => [breaker.name, breaker])),
    async stop() {
      shuttingDown = true;
      // Streams would hold the shutdown for its whole grace; their clients reconnect to another replica.
      await server.retire(shutdownDelayMs(config), config.SHUTDOWN_GRACE_MS, () => streams.close());
      await usage.stop();
      users.close();
      await amqp.close();
      for (const upstream of Object.values(upstreams)) upstream.close();
      keysBreaker.shutdown();
      slots.close();
      // What this process leased and did not hand out goes back, for the other gateways to serve.
      await limits.limiter.close();
      redis.disconnect();
    },
  };
}

/** Redis for the limits, given a moment to connect: the first requests count where every replica sees them. */
async function connectRedis(config: GatewayConfig, logger: Logger): Promise<Redis> {
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    // Each command is written as it is issued. Auto-pipelining batched a few per write but cost
    // more than it saved: a Pipeline, its promises and callbacks per batch (bench/RESULTS.md, "No
    // ioredis auto-pipelining").
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    // A backstop for every command: the limiter gives up on Redis sooner, at its own deadline,
    // which also keeps an answer that came in time while this process was starved of CPU.
    commandTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let redisDown = false;
  redis.on('error', (err: Error) => {
    if (!redisDown)
      logger.warn(
        { url: redactUrl(config.REDIS_URL), reason: err.message },
        'redis unreachable: limiting in memory',
      );
    redisDown = true;
  });
  redis.on('ready', () => {
    if (redisDown) logger.info('redis back: limiting in redis again');
    redisDown = false;
  });
  await whenReady(redis, 2_000);
  return redis;
}

/** Key lookups in users-service, behind a breaker of their own, and the keys' last-used reports. */
function keyLookupOf(config: GatewayConfig, registry: Registry, logger: Logger) {
  const keysBreaker = createBreaker('users_keys', logger);
  const users = new UsersClient(config.USERS_SERVICE_URL, config.INTERNAL_TOKEN, keysBreaker);
  const keys = new KeyResolver({ users, ttlMs: config.KEY_CACHE_TTL_SECONDS * 1000, registry });
  const usage = new UsageReporter(users, logger);
  usage.start();
  return { users, keys, usage, keysBreaker };
}

/** The notification streams relayed, and their slots per account in Redis (DESIGN.md §13). */
function streamsOf(config: GatewayConfig, redis: Redis, keys: KeyResolver, registry: Registry) {
  const slots = new StreamSlots(redis, {
    prefix: config.REDIS_PREFIX,
    cap: MAX_STREAMS_PER_ACCOUNT,
    leaseMs: STREAM_LEASE_MS,
  });
  return { slots, streams: new OpenStreams({ keys, slots, recheckMs: STREAM_RECHECK_MS, registry }) };
}

function upstreamsOf(config: GatewayConfig, logger: Logger) {
  const common = {
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    stallMs: config.UPSTREAM_STALL_MS,
    queueTimeoutMs: config.QUEUE_TIMEOUT_MS,
    maxInFlight: config.UPSTREAM_MAX_IN_FLIGHT,
    internalToken: config.INTERNAL_TOKEN,
    logger,
  };
  return {
    posts: new Upstream({ name: 'posts', target: config.POSTS_SERVICE_URL, ...common }),
    users: new Upstream({ name: 'users', target: config.USERS_SERVICE_URL, ...common }),
    webhooks: new Upstream({ name: 'webhooks', target: config.WEBHOOK_SERVICE_URL, ...common }),
  };
}

/** The budgets, the requests in flight and the avatars' budget, all counted in Redis. */
function limitsOf(config: GatewayConfig, redis: Redis, registry: Registry, logger: Logger) {
  const replicas = config.GATEWAY_REPLICAS;
  return {
    limiter: new TwoWindowLimiter(redis, config.REDIS_PREFIX, { replicas, registry, logger }),
    anonymous: { hourly: config.ANON_HOURLY_LIMIT, daily: config.ANON_DAILY_LIMIT },
    pagesHourly: config.PAGES_HOURLY_LIMIT,
    inFlight: new InFlight(redis, { prefix: config.REDIS_PREFIX, replicas }),
    inFlightLimits: config.IN_FLIGHT_LIMITS,
    avatars: new AvatarsBudget(redis, {
      prefix: config.REDIS_PREFIX,
      perMinute: config.AVATARS_PER_MINUTE,
      replicas,
    }),
  };
}

function readinessChecks(redis: Redis, amqp: AmqpConnection): ReadinessCheck[] {
  return [
    // Without Redis the gateway limits per process: degraded, still serving.
    {
      name: 'redis',
      critical: false,
      run: async () => (redis.status === 'ready' ? redis.ping() : Promise.reject(new Error(redis.status))),
    },
    {
      name: 'rabbitmq',
      critical: false,
      run: async () => amqp.isConnected() || Promise.reject(new Error('not connected')),
    },
  ];
}

function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
  });
}
