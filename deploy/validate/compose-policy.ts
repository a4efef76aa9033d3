import { problem, type Problem } from './problems';

type Service = Record<string, unknown> & {
  ports?: unknown[];
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  environment?: Record<string, unknown> | string[];
  image?: string;
  build?: unknown;
  volumes?: unknown[];
  profiles?: string[];
};

const APPS = ['gateway', 'posts-service', 'users-service', 'webhook-service'];
const INFRA = ['postgres', 'redis', 'rabbitmq'];
const DATA_SERVICES = APPS.filter((name) => name !== 'gateway');
/**
 * The profile of the operator's tools (Prometheus, Grafana, Jaeger): started only on request, and
 * the one place besides the gateway that may publish a port, on this machine's loopback only.
 */
const LOOPBACK_PROFILE = 'observability';
/** Variables that carry a secret, alone or inside a URL: they must come from .env, never literal. */
const SECRET_VARIABLES =
  /^(INTERNAL_TOKEN|SECRETS_KEY|DATABASE_URL|AMQP_URL|REDIS_URL|.*PASSWORD.*|RABBITMQ_DEFAULT_PASS)$/;

const environmentOf = (service: Service): Record<string, unknown> =>
  Array.isArray(service.environment)
    ? Object.fromEntries(service.environment.map((entry) => String(entry).split(/=(.*)/s)))
    : (service.environment ?? {});

type Fail = (where: string, message: string) => void;

/**
 * What docker-compose.yml promises beyond the schema: the stack is complete, only the gateway is
 * published, everything has a health check that its dependants wait for, and secrets come from .env.
 * `config` is the interpolated file, `raw` the file as written.
 */
export function checkStackPolicy(
  source: string,
  config: Record<string, unknown>,
  raw: Record<string, unknown>,
): Problem[] {
  const problems: Problem[] = [];
  const fail: Fail = (where, message) => problems.push(problem(source, message, where));
  const services = (config.services ?? {}) as Record<string, Service>;
  const rawServices = (raw.services ?? {}) as Record<string, Service>;

  for (const name of [...APPS, ...INFRA]) {
    if (!services[name]) fail(`services.${name}`, 'is missing');
  }
  for (const [name, service] of Object.entries(services)) {
    checkService(`services.${name}`, name, service, services, fail);
    checkSecretsFromEnv(`services.${name}`, rawServices[name], fail);
  }
  checkApps(services, fail);
  checkWebhookPrivateNetworks(services['webhook-service'], rawServices['webhook-service'], fail);
  checkInfra(services, fail);
  return problems;
}

/**
 * Only the gateway is published (and the observability profile's tools, on 127.0.0.1); every service
 * has a health check its dependants wait for.
 */
function checkService(
  where: string,
  name: string,
  service: Service,
  services: Record<string, Service>,
  fail: Fail,
): void {
  if (service.ports?.length && name !== 'gateway') {
    if (!service.profiles?.includes(LOOPBACK_PROFILE)) {
      fail(`${where}.ports`, `only the gateway and the ${LOOPBACK_PROFILE} profile may publish ports`);
    } else if (!service.ports.every(onLoopback)) {
      fail(`${where}.ports`, `the ${LOOPBACK_PROFILE} profile publishes on 127.0.0.1 only`);
    }
  }
  if (!service.healthcheck?.test || service.healthcheck.disable) {
    fail(`${where}.healthcheck`, 'every service needs a health check');
  }
  const dependsOn = service.depends_on ?? {};
  if (Array.isArray(dependsOn)) {
    if (dependsOn.length) fail(`${where}.depends_on`, 'must wait with condition: service_healthy');
    return;
  }
  for (const [target, { condition } = {}] of Object.entries(dependsOn)) {
    if (!services[target]) fail(`${where}.depends_on.${target}`, 'names no service of this file');
    if (condition !== 'service_healthy') {
      fail(`${where}.depends_on.${target}`, 'must use condition: service_healthy');
    }
  }
}

/** `127.0.0.1:9090:9090`, or the long form with `host_ip: 127.0.0.1`. */
function onLoopback(port: unknown): boolean {
  if (typeof port === 'string') return port.startsWith('127.0.0.1:');
  return typeof port === 'object' && port !== null && (port as { host_ip?: unknown }).host_ip === '127.0.0.1';
}

/** Checked on the file as written: interpolation would hide a literal behind its value. */
function checkSecretsFromEnv(where: string, rawService: Service | undefined, fail: Fail): void {
  const rawEnvironment = rawService ? environmentOf(rawService) : {};
  for (const [variable, value] of Object.entries(rawEnvironment)) {
    if (SECRET_VARIABLES.test(variable) && !/\$\{[A-Z0-9_]+(?::?[?-][^}]*)?\}/.test(String(value ?? ''))) {
      fail(
        `${where}.environment.${variable}`,
        'a secret must come from .env as ${VARIABLE}, not be written here',
      );
    }
  }
}

/** The apps are built here, wait for rabbitmq, and the data services listen beyond loopback. */
function checkApps(services: Record<string, Service>, fail: Fail): void {
  for (const name of APPS) {
    if (!services[name]) continue;
    if (!services[name].build) fail(`services.${name}.build`, 'must be built from the Dockerfile');
    const dependsOn = services[name].depends_on;
    if (!dependsOn || Array.isArray(dependsOn) || !dependsOn.rabbitmq) {
      fail(`services.${name}.depends_on`, 'must wait for rabbitmq to be healthy');
    }
  }
  for (const name of DATA_SERVICES) {
    if (services[name] && environmentOf(services[name]).SERVICE_HOST !== '0.0.0.0') {
      fail(
        `services.${name}.environment.SERVICE_HOST`,
        "must be '0.0.0.0': on its default (loopback) the gateway cannot reach the container",
      );
    }
  }
}

function checkWebhookPrivateNetworks(
  webhooks: Service | undefined,
  rawWebhooks: Service | undefined,
  fail: Fail,
): void {
  // Off as interpolated from .env.example, and off when .env does not set it (a ${VAR:-default}).
  const rawPrivate = String(environmentOf(rawWebhooks ?? {}).WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? '');
  const fallback = /^\$\{WEBHOOK_ALLOW_PRIVATE_NETWORKS(?::?-([^}]*))?\}$/.exec(rawPrivate);
  if (
    webhooks &&
    (environmentOf(webhooks).WEBHOOK_ALLOW_PRIVATE_NETWORKS !== 'false' ||
      (fallback && fallback[1] !== 'false'))
  ) {
    fail('services.webhook-service.environment', "WEBHOOK_ALLOW_PRIVATE_NETWORKS must be 'false'");
  }
}

function checkInfra(services: Record<string, Service>, fail: Fail): void {
  const rabbitmq = services.rabbitmq;
  if (rabbitmq && !/management/.test(rabbitmq.image ?? '')) {
    fail('services.rabbitmq.image', 'must be a -management image (the management UI)');
  }
  const postgres = services.postgres;
  if (postgres && !(postgres.volumes ?? []).some((v) => String(v).includes('/docker-entrypoint-initdb.d/'))) {
    fail('services.postgres.volumes', 'must mount the init script that creates one role per service');
  }
}
