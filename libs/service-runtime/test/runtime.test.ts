import express from 'express';
import postgres from 'postgres';
import { mountHealth } from '@community/http-kit';
import { createLogger } from '@community/logging';
import { startDataService, type DataServiceSpec } from '@community/service-runtime';
import {
  createTestDatabase,
  deleteAmqpObjects,
  dropRoles,
  testExchange,
  testInfra,
  testRoleName,
  type TestDatabase,
} from '@community/test-harness';
import { topologyNames } from '@community/events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const logger = createLogger({ service: 'runtime-test', level: 'silent' });
let database: TestDatabase;
const exchange = testExchange('runtime');
const migrationsDir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
writeFileSync(path.join(migrationsDir, '0001_things.sql'), 'create table things (id int primary key)');

beforeAll(async () => {
  database = await createTestDatabase('runtime');
});
afterAll(async () => {
  const names = topologyNames(exchange, 'runtime-svc');
  await deleteAmqpObjects(testInfra().amqpUrl, {
    queues: [names.queue, names.deadLetterQueue],
    exchanges: [exchange],
  });
  await database.drop();
});

const config = (url: string) => ({
  DATABASE_URL: url,
  AMQP_URL: testInfra().amqpUrl,
  AMQP_EXCHANGE: exchange,
  DB_POOL_MAX: 2,
  SHUTDOWN_GRACE_MS: 500,
});

/** A service of no events, on a free port, with the test's migrations. */
const startRuntimeSvc = (
  spec: Omit<DataServiceSpec, 'service' | 'schema' | 'migrationsDir' | 'handlers' | 'port'>,
) =>
  startDataService({
    service: 'runtime-svc',
    schema: 'runtime',
    migrationsDir,
    handlers: {},
    port: 0,
    ...spec,
  });

it('migrates, serves, reports readiness and stops in order', async () => {
  const stopped: string[] = [];
  const service = await startRuntimeSvc({
    config: config(database.url),
    logger,
    prepare: async ({ sql }) => {
      await sql`insert into things (id) values (1)`;
    },
    app:
      ({ sql }) =>
      async (_req, res) => {
        const [row] = await sql`select count(*)::int as n from things`;
        res.end(JSON.stringify(row));
      },
    onStop: () => {
      stopped.push('background');
    },
  });
  expect(await (await fetch(service.url)).json()).toEqual({ n: 1 });
  // Only the gateway is public: without SERVICE_HOST a service answers on loopback only.
  expect(service.address).toBe('127.0.0.1');
  await service.stop();
  expect(stopped).toEqual(['background']);
  await expect(fetch(service.url)).rejects.toThrow();
});

it('answers /readyz 503 at once when stopping, serves on for SHUTDOWN_DELAY_MS on closing connections, then stops', async () => {
  const steps: string[] = [];
  const service = await startRuntimeSvc({
    config: { ...config(database.url), SHUTDOWN_DELAY_MS: 600 },
    logger,
    app: (runtime) => {
      const router = express.Router();
      mountHealth(router, runtime.health);
      return express()
        .use(router)
        .get('/thing', (_req, res) => void res.send('ok'));
    },
    onStopping: () => steps.push('streams ended'),
  });
  const ready = async () => (await fetch(`${service.url}/readyz`)).status;
  expect(await ready()).toBe(200);
  const started = Date.now();
  const stopped = service.stop().then(() => steps.push('stopped'));
  expect(await ready()).toBe(503);
  const thing = await fetch(`${service.url}/thing`);
  expect([thing.status, await thing.text(), thing.headers.get('connection')]).toEqual([200, 'ok', 'close']);
  expect(steps).toEqual([]);
  await stopped;
  expect(steps).toEqual(['streams ended', 'stopped']);
  expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  await expect(fetch(service.url)).rejects.toThrow();
});

it('listens on SERVICE_HOST when one is given, as containers need', async () => {
  const service = await startRuntimeSvc({
    config: { ...config(database.url), SERVICE_HOST: '0.0.0.0' },
    logger,
    app: () => (_req, res) => res.end('ok'),
  });
  try {
    expect(service.address).toBe('0.0.0.0');
    expect(await (await fetch(service.url)).text()).toBe('ok');
  } finally {
    await service.stop();
  }
});

/** A service with nothing to serve, started against `url`: for the start-up errors. */
const startWithDatabase = (url: string) =>
  startRuntimeSvc({
    config: config(url),
    logger,
    app: () => () => {},
  });

it('says a refused login is one, not an unreachable server (a role password rotated too early)', async () => {
  const role = testRoleName('nologin');
  const admin = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create role "${role}" nologin`);
  await admin.end();
  const url = new URL(database.url);
  url.username = role;
  try {
    await expect(startWithDatabase(url.toString())).rejects.toThrow(
      /^PostgreSQL at .* refused the login \(28000\); check the user and password in DATABASE_URL$/,
    );
  } finally {
    await dropRoles([role]);
  }
});

it('fails to start with one sentence when PostgreSQL is unreachable', async () => {
  await expect(startWithDatabase('postgres://postgres:pw@127.0.0.1:1/nope')).rejects.toThrow(
    /^PostgreSQL is not reachable at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nope \(ECONNREFUSED\); check that it is running and that DATABASE_URL points at it$/,
  );
});
