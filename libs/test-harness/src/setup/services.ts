import type { TestInfra } from '../infra';
import { usablePgServerUrl } from './pg-check';

/** A service the test run needs, and every way global setup may find it. */
export interface ServiceSpec {
  key: Exclude<keyof TestInfra, 'runId'>;
  title: string;
  /** Checked in order; the first one set wins. */
  envVars: readonly [string, string];
  localUrl: string;
  defaultPort: number;
  startCommand: string;
  startContainer(): Promise<StartedService>;
  /** Confirms the service lets us in; returns the URL to hand to tests (it may differ). */
  verify?(url: string, source: string): Promise<string>;
}

export interface StartedService {
  url: string;
  stop(): Promise<void>;
}

// The testcontainers modules pull in dockerode and friends; load them only when a container is needed.
export const SERVICES: readonly ServiceSpec[] = [
  {
    key: 'pgUrl',
    title: 'PostgreSQL',
    envVars: ['TEST_DATABASE_URL', 'DATABASE_URL'],
    localUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
    defaultPort: 5432,
    startCommand: 'pg_ctlcluster --skip-systemctl-redirect 15 main start',
    verify: usablePgServerUrl,
    async startContainer() {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:15-alpine').start();
      return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
    },
  },
  {
    key: 'redisUrl',
    title: 'Redis',
    envVars: ['TEST_REDIS_URL', 'REDIS_URL'],
    localUrl: 'redis://127.0.0.1:6379',
    defaultPort: 6379,
    startCommand:
      'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
    async startContainer() {
      const { RedisContainer } = await import('@testcontainers/redis');
      const container = await new RedisContainer('redis:7-alpine').start();
      return { url: container.getConnectionUrl(), stop: async () => void (await container.stop()) };
    },
  },
  {
    key: 'amqpUrl',
    title: 'RabbitMQ',
    envVars: ['TEST_AMQP_URL', 'AMQP_URL'],
    localUrl: 'amqp://guest:guest@127.0.0.1:5672',
    defaultPort: 5672,
    startCommand: 'rabbitmq-server -detached',
    async startContainer() {
      const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
      const container = await new RabbitMQContainer('rabbitmq:3.10-alpine').start();
      return { url: container.getAmqpUrl(), stop: async () => void (await container.stop()) };
    },
  },
];
