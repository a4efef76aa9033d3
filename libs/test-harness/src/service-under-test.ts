import { randomBytes } from 'node:crypto';
import { createDb, type Sql } from '@community/db';
import { apiClient } from './api-client';
import { testInfra } from './infra';
import { serviceSandbox, type ServiceSandbox } from './service-sandbox';

/** What a service's `start()` hands back, as far as a test needs it. */
export interface RunningService {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** How to start one service: the only part each service writes for itself. */
export interface ServiceDefinition<C, R extends RunningService> {
  /** The package name (`posts-service`): its queues are deleted with the sandbox. */
  service: string;
  /** Its PostgreSQL schema, for the test's own connection. */
  schema: string;
  /** The variable naming its port (`POSTS_SERVICE_PORT`): 0 at first, the same port on a restart. */
  portVar: string;
  parse(env: Record<string, string>): C;
  start(config: C): Promise<R>;
  /** Waits for what `start()` does not (say, the consumer's bindings). */
  ready?(running: R): Promise<void>;
}

export interface ServiceUnderTest<C, R extends RunningService> {
  config: C;
  exchange: string;
  url: string;
  /** Calls the service as the gateway would (signed identity). */
  call: ReturnType<typeof apiClient>;
  /** A direct connection to the service's schema, for arranging data and asserting on it. */
  sql: Sql;
  running(): R;
  /** Stops the process only; `resume` starts it again on the same port. */
  halt(): Promise<void>;
  resume(start?: (config: C) => Promise<R>): Promise<void>;
  restart(start?: (config: C) => Promise<R>): Promise<void>;
  /** Stops it and, unless the sandbox was lent, drops its database and exchange. */
  stop(): Promise<void>;
}

/** The variables every service takes, pointed at one sandbox and one fresh internal token. */
export function sandboxEnv(sandbox: ServiceSandbox): Record<string, string> {
  return {
    DATABASE_URL: sandbox.database.url,
    AMQP_URL: testInfra().amqpUrl,
    AMQP_EXCHANGE: sandbox.exchange,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
  };
}

export interface StartOptions {
  /** Names the sandbox (database, exchange) when the service gets one of its own. */
  label: string;
  /** Variables over {@link sandboxEnv}'s. */
  env?: Record<string, string>;
  /** A sandbox shared with other services; whoever lent it cleans it up. */
  sandbox?: ServiceSandbox;
}

/** One service on port 0 against real PostgreSQL and RabbitMQ, in a sandbox of its own or a shared one. */
export async function startServiceUnderTest<C, R extends RunningService>(
  definition: ServiceDefinition<C, R>,
  { label, env = {}, sandbox: lent }: StartOptions,
): Promise<ServiceUnderTest<C, R>> {
  const sandbox = lent ?? (await serviceSandbox(label));
  const config = definition.parse({ ...sandboxEnv(sandbox), [definition.portVar]: '0', ...env });
  const boot = async (start: (config: C) => Promise<R>, port?: number) => {
    const next = await start(port === undefined ? config : { ...config, [definition.portVar]: port });
    await definition.ready?.(next);
    return next;
  };
  let running = await boot(definition.start);
  let up = true;
  const sql = createDb(sandbox.database.url, { schema: definition.schema, max: 2 });
  const token = (config as { INTERNAL_TOKEN: string }).INTERNAL_TOKEN;
  const harness: ServiceUnderTest<C, R> = {
    config,
    exchange: sandbox.exchange,
    url: running.url,
    call: apiClient(running.url, token),
    sql,
    running: () => running,
    async halt() {
      if (up) await running.stop();
      up = false;
    },
    async resume(start = definition.start) {
      running = await boot(start, running.port);
      up = true;
    },
    async restart(start) {
      await harness.halt();
      await harness.resume(start);
    },
    async stop() {
      await harness.halt();
      await sql.end({ timeout: 1 });
      if (!lent) await sandbox.cleanup([definition.service]);
    },
  };
  return harness;
}
