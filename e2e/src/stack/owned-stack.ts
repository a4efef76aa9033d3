import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import {
  freePort,
  redisPrefix,
  serviceSandbox,
  startTcpProxy,
  testInfra,
  type TcpProxy,
} from '@community/test-harness';
import { ServiceProcess, type ServiceName } from './service-process';

export interface AdminCredentials {
  username: string;
  password: string;
  email: string;
}

/** The whole stack as child processes, with its broker and Redis links behind proxies the suite can cut. */
export interface OwnedStack {
  baseUrl: string;
  admin: AdminCredentials;
  services: Record<ServiceName, ServiceProcess>;
  /** Every service's AMQP connection goes through this proxy. */
  amqpProxy: TcpProxy;
  /** The gateway's Redis connection goes through this proxy. */
  redisProxy: TcpProxy;
  databaseName: string;
  logDir: string;
  /** pg_terminate_backend on every connection a service holds to this run's database; returns how many. */
  terminateDbConnections(schema: 'posts' | 'users' | 'webhooks'): Promise<number>;
  stop(): Promise<void>;
}

const DATA_SERVICES = ['posts-service', 'users-service', 'webhook-service'];

/** Short retries so a failed delivery comes back within the test, not in five seconds or five minutes. */
export const E2E_RETRY_SCHEDULE = '1,1,1,2,2,3,3,5';

/**
 * The Idempotency-Key after whose commit posts-service kills itself, before answering: the crash a
 * retry must survive (libs/service-runtime reads E2E_CRASH_AFTER_COMMIT_KEY; no deployment sets it).
 */
export const CRASH_AFTER_COMMIT_KEY = 'e2e-crash-after-commit';

/**
 * Starts posts-service, users-service, webhook-service and the gateway the way `npm start` does, on
 * free ports, with a fresh database, exchange and Redis prefix of their own.
 */
export async function startOwnedStack(label: string): Promise<OwnedStack> {
  const infra = testInfra();
  const sandbox = await serviceSandbox(`e2e_${label}`);
  const amqpTarget = new URL(infra.amqpUrl);
  const redisTarget = new URL(infra.redisUrl);
  const amqpProxy = await startTcpProxy({ host: amqpTarget.hostname, port: Number(amqpTarget.port || 5672) });
  const redisProxy = await startTcpProxy({
    host: redisTarget.hostname,
    port: Number(redisTarget.port || 6379),
  });
  const logDir = path.join(os.tmpdir(), 'community-e2e', sandbox.database.name);
  mkdirSync(logDir, { recursive: true });

  const admin: AdminCredentials = {
    username: 'e2e_admin',
    password: randomBytes(18).toString('base64url'),
    email: 'e2e_admin@example.test',
  };
  const [postsPort, usersPort, webhooksPort, gatewayPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  // Only what the services read, so nothing from the developer's shell (DATABASE_URL, …) leaks in.
  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    INTERNAL_TOKEN: randomBytes(32).toString('base64url'),
    DATABASE_URL: sandbox.database.url,
    AMQP_URL: amqpProxy.url(infra.amqpUrl),
    AMQP_EXCHANGE: sandbox.exchange,
    SHUTDOWN_GRACE_MS: '2000',
  };
  const service = (
    name: ServiceName,
    dir: string,
    port: number,
    env: NodeJS.ProcessEnv,
    nodeArgs?: string[],
  ) =>
    new ServiceProcess({
      name,
      dir,
      port,
      env: { ...common, ...env },
      nodeArgs,
      logFile: path.join(logDir, `${name}.log`),
    });
  const services: Record<ServiceName, ServiceProcess> = {
    posts: service('posts', 'posts-service', postsPort!, {
      POSTS_SERVICE_PORT: String(postsPort),
      E2E_CRASH_AFTER_COMMIT_KEY: CRASH_AFTER_COMMIT_KEY,
    }),
    users: service('users', 'users-service', usersPort!, {
      USERS_SERVICE_PORT: String(usersPort),
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      ADMIN_EMAIL: admin.email,
    }),
    webhooks: service('webhooks', 'webhook-service', webhooksPort!, {
      WEBHOOK_SERVICE_PORT: String(webhooksPort),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
      SECRETS_KEY: randomBytes(32).toString('base64'),
    }),
    gateway: service(
      'gateway',
      'gateway',
      gatewayPort!,
      {
        GATEWAY_PORT: String(gatewayPort),
        REDIS_URL: redisProxy.url(infra.redisUrl),
        REDIS_PREFIX: redisPrefix(`e2e_${label}`),
        POSTS_SERVICE_URL: `http://127.0.0.1:${postsPort}`,
        USERS_SERVICE_URL: `http://127.0.0.1:${usersPort}`,
        WEBHOOK_SERVICE_URL: `http://127.0.0.1:${webhooksPort}`,
        // The suite stands in for many clients on one machine: it names each in X-Forwarded-For, as a
        // load balancer would, so per-address limits (registrations, anonymous calls) apply per client.
        TRUST_PROXY: 'loopback',
      },
      ['--max-semi-space-size=32'],
    ),
  };

  const stopAll = async () => {
    // The gateway first, as a deployment drains: its last key-usage report still finds users-service.
    await services.gateway.stop();
    await Promise.all([services.posts.stop(), services.users.stop(), services.webhooks.stop()]);
    for (const s of Object.values(services)) s.close();
    await Promise.all([amqpProxy.stop(), redisProxy.stop()]);
  };
  try {
    // The data services migrate their own schemas, so they can start together; the gateway last.
    await Promise.all([services.users.start(), services.posts.start(), services.webhooks.start()]);
    await services.gateway.start();
  } catch (err) {
    await stopAll();
    await sandbox.cleanup(DATA_SERVICES);
    throw err;
  }

  return {
    baseUrl: services.gateway.url,
    admin,
    services,
    amqpProxy,
    redisProxy,
    databaseName: sandbox.database.name,
    logDir,
    terminateDbConnections: (schema) => terminate(infra.pgUrl, sandbox.database.name, schema),
    async stop() {
      await stopAll();
      await sandbox.cleanup(DATA_SERVICES);
    },
  };
}

async function terminate(serverUrl: string, database: string, applicationName: string): Promise<number> {
  const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`
      select pg_terminate_backend(pid) as ok from pg_stat_activity
      where datname = ${database} and application_name = ${applicationName} and pid <> pg_backend_pid()`;
    return rows.filter((row) => row.ok).length;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
