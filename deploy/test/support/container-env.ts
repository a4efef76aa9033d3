import path from 'node:path';
import { loadCompose } from '../../validate/compose';

export const APP_SERVICES = ['posts-service', 'users-service', 'webhook-service', 'gateway'] as const;
export type AppService = (typeof APP_SERVICES)[number];

const root = path.resolve(__dirname, '../../..');

export interface LocalInfra {
  /** Where PostgreSQL, Redis and RabbitMQ are on this machine. */
  pgUrl: string;
  redisUrl: string;
  amqpUrl: string;
  redisPrefix: string;
  /** The database and the role each data service logs in as. */
  database: string;
  roles: Record<string, string>;
  /** The port each app service listens on here. */
  ports: Record<AppService, number>;
}

/**
 * The environment docker-compose.yml gives a service's container (interpolated from .env.example),
 * moved onto this machine: the compose host names become the local addresses and ports, and each
 * database user becomes a role of this test run. Nothing is added or renamed, so a variable the
 * compose file misnames shows up as a service that ignores it.
 */
export function containerEnv(service: AppService, infra: LocalInfra): Record<string, string> {
  const { config } = loadCompose(path.join(root, 'docker-compose.yml'), path.join(root, '.env.example'));
  const services = config.services as Record<string, { environment: Record<string, string> }>;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(services[service]!.environment)) {
    env[name] = localise(String(value), infra);
  }
  for (const app of APP_SERVICES) {
    const portVariable =
      app === 'gateway' ? 'GATEWAY_PORT' : `${app.split('-')[0]!.toUpperCase()}_SERVICE_PORT`;
    if (portVariable in env) env[portVariable] = String(infra.ports[app]);
  }
  // The Dockerfile sets SERVICE (the health check reads it).
  return { ...env, SERVICE: service };
}

function localise(value: string, infra: LocalInfra): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  switch (url.hostname) {
    case 'postgres': {
      const local = new URL(infra.pgUrl);
      url.host = local.host;
      url.pathname = `/${infra.database}`;
      url.username = infra.roles[url.username] ?? url.username;
      return url.toString();
    }
    // The local broker and Redis have their own credentials.
    case 'rabbitmq':
      return infra.amqpUrl;
    case 'redis':
      return infra.redisUrl;
    case 'posts-service':
    case 'users-service':
    case 'webhook-service':
      return `http://127.0.0.1:${infra.ports[url.hostname]}`;
    default:
      return value;
  }
}
