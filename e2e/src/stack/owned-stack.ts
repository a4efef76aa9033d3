import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePorts,
  redisPrefix,
  serviceSandbox,
  startBalancer,
  startTcpProxy,
  testInfra,
  type Balancer,
  type ServiceSandbox,
  type TcpProxy,
  type TestInfra,
} from '@community/test-harness';
import { ServiceProcess, type ServiceName } from './service-process';
import { reportLoggedErrors, terminate } from './stack-aftermath';

export interface AdminCredentials {
  username: string;
  password: string;
  email: string;
}

/** The whole stack as child processes, with its broker and Redis links behind proxies the suite can cut. */
export interface OwnedStack {
  baseUrl: string;
  admin: AdminCredentials;
  /** The first process of each service. */
  services: Record<ServiceName, ServiceProcess>;
  /** Every process of each service (two of each with `replicas: 2`). */
  replicas: Record<ServiceName, ServiceProcess[]>;
  /** With replicas: the round-robin balancer in front of each service's processes (a Kubernetes Service). */
  balancers: Partial<Record<ServiceName, Balancer>>;
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

export interface OwnedStackOptions {
  /**
   * Processes of each service (issue 23). With more than one, each service's processes stand behind
   * a round-robin TCP balancer: the gateways reach the services through theirs, clients reach the
   * gateways through the gateway's.
   */
  replicas?: number;
  /** Variables every process gets on top of the stack's own (tracing, a log level). */
  env?: NodeJS.ProcessEnv;
  /** A database (and exchange) of the caller's, e.g. a restored one; the stack drops it at stop. */
  sandbox?: ServiceSandbox;
  /** A checkout to run the services from (the previous release's worktree); this one by default. */
  root?: string;
  admin?: AdminCredentials;
}

const SERVICE_NAMES: ServiceName[] = ['posts', 'users', 'webhooks', 'gateway'];

/**
 * Starts posts-service, users-service, webhook-service and the gateway the way `npm start` does, on
 * free ports, with a fresh database, exchange and Redis prefix of their own.
 */
export async function startOwnedStack(
  label: string,
  { replicas = 1, env = {}, root, ...given }: OwnedStackOptions = {},
): Promise<OwnedStack> {
  const infra = testInfra();
  const sandbox = given.sandbox ?? (await serviceSandbox(`e2e_${label}`));
  const amqpProxy = await proxyTo(infra.amqpUrl, 5672);
  const redisProxy = await proxyTo(infra.redisUrl, 6379);
  const logDir = path.join(os.tmpdir(), 'community-e2e', sandbox.database.name);
  mkdirSync(logDir, { recursive: true });
  const admin = given.admin ?? newAdmin();
  const { ports, balancerPorts } = await pickPorts(replicas);
  // With replicas, each service's processes stand behind a balancer, as behind a Kubernetes Service.
  const balancers = replicas > 1 ? await startBalancers(ports, balancerPorts) : {};
  const reach = (name: ServiceName) => balancers[name]?.url ?? `http://127.0.0.1:${ports[name][0]}`;
  const wiring = { label, replicas, infra, sandbox, amqpProxy, redisProxy, logDir, admin, ports, env, root };
  const all = serviceProcesses({ ...wiring, reach });
  const stopAll = () => stopStack(all, [amqpProxy, redisProxy, ...Object.values(balancers)]);
  try {
    // The data services migrate their own schemas, so they can start together (every replica at once:
    // their migrations wait for each other); the gateways last.
    await Promise.all(dataProcesses(all).map((p) => p.start()));
    await Promise.all(all.gateway.map((p) => p.start()));
  } catch (err) {
    await stopAll();
    await sandbox.cleanup(DATA_SERVICES);
    throw err;
  }

  return {
    baseUrl: reach('gateway'),
    admin,
    services: Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, all[name][0]!]),
    ) as OwnedStack['services'],
    replicas: all,
    balancers,
    amqpProxy,
    redisProxy,
    databaseName: sandbox.database.name,
    logDir,
    terminateDbConnections: (schema) => terminate(infra.pgUrl, sandbox.database.name, schema),
    async stop() {
      await stopAll();
      await sandbox.cleanup(DATA_SERVICES);
      reportLoggedErrors(logDir);
    },
  };
}

/** What the services' processes are started with: where they run, what they reach, who they trust. */
interface StackWiring {
  label: string;
  replicas: number;
  infra: TestInfra;
  sandbox: ServiceSandbox;
  amqpProxy: TcpProxy;
  redisProxy: TcpProxy;
  logDir: string;
  admin: AdminCredentials;
  ports: Ports;
  /** The URL a service is reached at: its balancer's, or its one process's. */
  reach: (name: ServiceName) => string;
  env: NodeJS.ProcessEnv;
  root?: string;
}

type Processes = Record<ServiceName, ServiceProcess[]>;
type Ports = Record<ServiceName, number[]>;

const SERVICE_DIRS: Record<ServiceName, string> = {
  posts: 'posts-service',
  users: 'users-service',
  webhooks: 'webhook-service',
  gateway: 'gateway',
};

/** A proxy to the server of `url`, which the suite can cut and freeze. */
function proxyTo(url: string, defaultPort: number): Promise<TcpProxy> {
  const target = new URL(url);
  return startTcpProxy({ host: target.hostname, port: Number(target.port || defaultPort) });
}

const newAdmin = (): AdminCredentials => ({
  username: 'e2e_admin',
  password: randomBytes(18).toString('base64url'),
  email: 'e2e_admin@example.test',
});

async function pickPorts(replicas: number) {
  // Every port at once and distinct: one picked for a balancer never lands on a service's. (Balancers
  // only with replicas: fewer ports held unbound while the processes boot.)
  const picked = await freePorts(SERVICE_NAMES.length * (replicas > 1 ? replicas + 1 : 1));
  const ports = Object.fromEntries(
    SERVICE_NAMES.map((name, i) => [name, picked.slice(i * replicas, (i + 1) * replicas)]),
  ) as Ports;
  return { ports, balancerPorts: picked.slice(SERVICE_NAMES.length * replicas) };
}

async function startBalancers(ports: Ports, balancerPorts: number[]): Promise<OwnedStack['balancers']> {
  const balancers: OwnedStack['balancers'] = {};
  for (const [i, name] of SERVICE_NAMES.entries()) {
    const targets = ports[name].map((port) => ({ port }));
    balancers[name] = await startBalancer(targets, balancerPorts[i]);
  }
  return balancers;
}

/** Every process of every service, created but not started, each logging to a file of its own. */
function serviceProcesses(wiring: StackWiring): Processes {
  const { ports, replicas, logDir, infra, sandbox, amqpProxy } = wiring;
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
    SHUTDOWN_DELAY_MS: '0', // production's 5 s only where a file's `env` asks (rolling restarts)
  };
  const envs = serviceEnvs(wiring);
  const processes = (name: ServiceName) =>
    ports[name].map(
      (port, i) =>
        new ServiceProcess({
          name,
          dir: SERVICE_DIRS[name],
          root: wiring.root,
          port,
          env: { ...common, ...envs[name](port), ...wiring.env },
          nodeArgs: name === 'gateway' ? ['--max-semi-space-size=32'] : undefined,
          logFile: path.join(logDir, replicas === 1 ? `${name}.log` : `${name}-${i + 1}.log`),
        }),
    );
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, processes(name)])) as Processes;
}

/** Each service's own variables, for its process on `port`. */
function serviceEnvs(wiring: StackWiring): Record<ServiceName, (port: number) => NodeJS.ProcessEnv> {
  const { admin, infra, redisProxy, replicas, reach } = wiring;
  // One prefix for every gateway replica: they count the same windows.
  const limitsPrefix = redisPrefix(`e2e_${wiring.label}`);
  // One key for every webhook-service replica: each must open the secrets another sealed.
  const webhookSecretsKey = randomBytes(32).toString('base64');
  return {
    posts: (port) => ({
      POSTS_SERVICE_PORT: String(port),
      E2E_CRASH_AFTER_COMMIT_KEY: CRASH_AFTER_COMMIT_KEY,
      // The suite's accounts are minutes old: at the default (24 h) their flags would hide nothing,
      // and the flags journey has three members hide a post.
      FLAG_MIN_ACCOUNT_AGE_HOURS: '0',
    }),
    users: (port) => ({
      USERS_SERVICE_PORT: String(port),
      // The export (DESIGN.md §20) reads the other services' parts.
      POSTS_SERVICE_URL: reach('posts'),
      WEBHOOK_SERVICE_URL: reach('webhooks'),
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      ADMIN_EMAIL: admin.email,
    }),
    webhooks: (port) => ({
      WEBHOOK_SERVICE_PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
      // An attempt of a killed replica is taken over within the test, not a minute later.
      WEBHOOK_LEASE_SECONDS: '15',
      SECRETS_KEY: webhookSecretsKey,
    }),
    gateway: (port) => ({
      GATEWAY_PORT: String(port),
      REDIS_URL: redisProxy.url(infra.redisUrl),
      REDIS_PREFIX: limitsPrefix,
      POSTS_SERVICE_URL: reach('posts'),
      USERS_SERVICE_URL: reach('users'),
      WEBHOOK_SERVICE_URL: reach('webhooks'),
      GATEWAY_REPLICAS: String(replicas),
      // The suite stands in for many clients on one machine: it names each in X-Forwarded-For, as a
      // load balancer would, so per-address limits (registrations, anonymous calls) apply per client.
      TRUST_PROXY: 'loopback',
    }),
  };
}

const dataProcesses = (all: Processes) => [...all.posts, ...all.users, ...all.webhooks];

async function stopStack(all: Processes, links: { stop(): Promise<void> }[]): Promise<void> {
  const data = dataProcesses(all);
  // The gateways first, as a deployment drains: their last key-usage report still finds users-service.
  await Promise.all(all.gateway.map((p) => p.stop()));
  await Promise.all(data.map((p) => p.stop()));
  for (const p of [...data, ...all.gateway]) p.close();
  await Promise.all(links.map((link) => link.stop()));
}
