import {
  actor,
  startServiceUnderTest,
  type ServiceDefinition,
  type ServiceUnderTest,
} from '@community/test-harness';
import { parseUsersConfig, type UsersConfig } from '../../src/config';
import { SERVICE_SCHEMA, start, type UsersService } from '../../src/start';

export interface UsersHarness extends ServiceUnderTest<UsersConfig, UsersService> {
  /** The bootstrapped admin (ADMIN_* variables), as the gateway would vouch for it. */
  admin: ReturnType<typeof actor>;
}

export const ADMIN = {
  username: 'root_admin',
  password: 'correct horse battery',
  email: 'admin@example.test',
};

/** How a test starts users-service (the shared factory does the rest). */
export const usersService: ServiceDefinition<UsersConfig, UsersService> = {
  service: SERVICE_SCHEMA.service,
  schema: SERVICE_SCHEMA.schema,
  portVar: 'USERS_SERVICE_PORT',
  parse: parseUsersConfig,
  start: (config) => start(config),
};

/** users-service on port 0 against its own database and exchange, with an admin bootstrapped. */
export async function startUsersService(
  label = 'users',
  env: Record<string, string> = {},
): Promise<UsersHarness> {
  const harness = await startServiceUnderTest(usersService, {
    label,
    env: {
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      ...env,
    },
  });
  const [row] = await harness.sql<{ id: number }[]>`select id from users where username = ${ADMIN.username}`;
  const admin = actor(row!.id, 'admin', ['read', 'write', 'keys', 'webhooks', 'moderate', 'admin']);
  return Object.assign(harness, { admin });
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
