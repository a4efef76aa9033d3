import { randomBytes } from 'node:crypto';
import { createDb } from '@community/db';
import { ConfigError } from '@community/config';
import { createTestDatabase, testExchange, testInfra, type TestDatabase } from '@community/test-harness';
import { parseUsersConfig } from '../../src/config';
import { verifyPassword } from '../../src/domain/passwords';
import { SERVICE_SCHEMA, start } from '../../src/start';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('bootstrap');
});
afterAll(() => database.drop());

const config = (admin: Record<string, string>) =>
  parseUsersConfig({
    DATABASE_URL: database.url,
    AMQP_URL: testInfra().amqpUrl,
    AMQP_EXCHANGE: testExchange('bootstrap'),
    INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    USERS_SERVICE_PORT: '0',
    LOG_LEVEL: 'silent',
    ...admin,
  });

it('creates the admin on first start, restores its role later, never resets its password', async () => {
  const admin = {
    ADMIN_USERNAME: 'Boss',
    ADMIN_PASSWORD: 'first password!',
    ADMIN_EMAIL: 'boss@example.test',
  };
  let service = await start(config(admin));
  await service.stop();
  const sql = createDb(database.url, { schema: SERVICE_SCHEMA.schema, max: 1 });
  try {
    const [created] = await sql`select id, role, password_hash from users where username = 'boss'`;
    expect(created?.role).toBe('admin');
    await sql`update users set role = 'member' where id = ${created!.id}`;
    service = await start(config({ ...admin, ADMIN_PASSWORD: 'second password!' }));
    await service.stop();
    const [after] = await sql`select role, password_hash from users where username = 'boss'`;
    expect(after?.role).toBe('admin');
    expect(await verifyPassword('first password!', after!.passwordHash)).toBe(true);
    const [{ count }] = (await sql`select count(*)::int as count from users`) as unknown as [
      { count: number },
    ];
    expect(count).toBe(1);
  } finally {
    await sql.end();
  }
});

it('needs all three ADMIN_* variables or none', () => {
  expect(() => config({ ADMIN_USERNAME: 'boss' })).toThrow(ConfigError);
  try {
    config({ ADMIN_USERNAME: 'boss' });
  } catch (err) {
    expect((err as ConfigError).problems.sort()).toEqual([
      'ADMIN_EMAIL: is required (must be set together with ADMIN_USERNAME)',
      'ADMIN_PASSWORD: is required (must be set together with ADMIN_USERNAME)',
    ]);
  }
  expect(() => config({ ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: 'short', ADMIN_EMAIL: 'x@y.test' })).toThrow(
    /ADMIN_PASSWORD/,
  );
});
