import { randomBytes } from 'node:crypto';
import { createDb, type Sql } from '@community/db';
import { actor, apiClient, testInfra, serviceSandbox } from '@community/test-harness';
import { parseUsersConfig, type UsersConfig } from '../../src/config';
import { SCHEMA, SERVICE, start, type UsersService } from '../../src/start';

export interface UsersHarness {
  config: UsersConfig;
  exchange: string;
  url: string;
  call: ReturnType<typeof apiClient>;
  sql: Sql;
  /** The bootstrapped admin (ADMIN_* variables), as the gateway would vouch for it. */
  admin: ReturnType<typeof actor>;
  stop(): Promise<void>;
}

export const ADMIN = {
  username: 'root_admin',
  password: 'correct horse battery',
  email: 'admin@example.test',
};

/** users-service on port 0 against its own database and exchange, with an admin bootstrapped. */
export async function startUsersService(
  label = 'users',
  env: Record<string, string> = {},
): Promise<UsersHarness> {
  const infra = testInfra();
  const sandbox = await serviceSandbox(label);
  const { database, exchange } = sandbox;
  const config = parseUsersConfig({
    DATABASE_URL: database.url,
    AMQP_URL: infra.amqpUrl,
    AMQP_EXCHANGE: exchange,
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    USERS_SERVICE_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_EMAIL: ADMIN.email,
    ...env,
  });
  const service: UsersService = await start(config);
  const sql = createDb(database.url, { schema: SCHEMA, max: 2 });
  const [row] = await sql<{ id: number }[]>`select id from users where username = ${ADMIN.username}`;
  return {
    config,
    exchange,
    url: service.url,
    call: apiClient(service.url, config.INTERNAL_TOKEN),
    sql,
    admin: actor(row!.id, 'admin', ['read', 'write', 'keys', 'webhooks', 'moderate', 'admin']),
    async stop() {
      await service.stop();
      await sql.end({ timeout: 1 });
      await sandbox.cleanup([SERVICE]);
    },
  };
}

let counter = 0;

/** Registers a fresh member through the API and returns it with an actor for gateway-signed calls. */
export async function registerMember(h: UsersHarness, overrides: Record<string, unknown> = {}) {
  counter++;
  const name = `member_${process.pid}_${counter}`;
  const res = await h.call(null, 'POST', '/auth/register', {
    body: { username: name, email: `${name}@example.test`, password: 'a good long password', ...overrides },
    clientIp: `10.0.${counter % 250}.${Math.floor(counter / 250)}`,
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.text}`);
  return {
    user: res.body.data,
    as: actor(res.body.data.id, 'member', ['read', 'write', 'keys', 'webhooks']),
    password: 'a good long password',
  };
}
