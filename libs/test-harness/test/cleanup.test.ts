import Redis from 'ioredis';
import amqp from 'amqplib';
import postgres from 'postgres';

import { deleteAmqpObjects, testExchange, testInfra, uniqueName } from '../src';
import { deleteRunKeys, dropRunDatabases, dropRunRoles } from '../src/setup/cleanup';

// Global teardown cleans up by run id. These tests use a run id of their own, so they cannot drop
// databases or keys that other tests of this run are still using.
describe('run cleanup used by global teardown', () => {
  const fakeRunId = `${testInfra().runId}zz`;

  it('drops exactly the databases of the run', async () => {
    const sql = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
    const ours = [`cp_test_${fakeRunId}_a_1`, `cp_test_${fakeRunId}_b_2`];
    // With LIKE 'cp_test_<id>_%' this name would match too, because '_' is a wildcard.
    const lookalike = `cp_test_${fakeRunId}0keep`;
    try {
      for (const name of [...ours, lookalike]) await sql.unsafe(`create database ${name}`);

      const dropped = await dropRunDatabases(testInfra().pgUrl, fakeRunId);

      expect(dropped.sort()).toEqual(ours);
      const left = await sql<{ datname: string }[]>`
        select datname from pg_database where starts_with(datname, ${`cp_test_${fakeRunId}`})`;
      expect(left.map((row) => row.datname)).toEqual([lookalike]);
    } finally {
      await sql.unsafe(`drop database if exists ${lookalike}`);
      await sql.end();
    }
  });

  it('drops exactly the roles of the run', async () => {
    const sql = postgres(testInfra().pgUrl, { max: 1, onnotice: () => {} });
    const ours = [`cp_test_${fakeRunId}_posts_1`, `cp_test_${fakeRunId}_users_2`];
    const lookalike = `cp_test_${fakeRunId}0keep`;
    try {
      for (const name of [...ours, lookalike]) await sql.unsafe(`create role ${name}`);

      expect((await dropRunRoles(testInfra().pgUrl, fakeRunId)).sort()).toEqual(ours);
      const left = await sql<{ rolname: string }[]>`
        select rolname from pg_roles where starts_with(rolname, ${`cp_test_${fakeRunId}`})`;
      expect(left.map((row) => row.rolname)).toEqual([lookalike]);
    } finally {
      await sql.unsafe(`drop role if exists ${lookalike}`);
      await sql.end();
    }
  });

  it('deletes exactly the Redis keys of the run', async () => {
    const redis = new Redis(testInfra().redisUrl);
    const keep = `test:${fakeRunId}x:keep`;
    try {
      await redis.mset(`test:${fakeRunId}:a`, '1', `test:${fakeRunId}:b:c`, '2', keep, '3');

      expect(await deleteRunKeys(testInfra().redisUrl, fakeRunId)).toBe(2);
      expect(await redis.exists(`test:${fakeRunId}:a`, `test:${fakeRunId}:b:c`, keep)).toBe(1);
    } finally {
      await redis.del(keep);
      redis.disconnect();
    }
  });
});

describe('deleteAmqpObjects', () => {
  it('deletes queues and exchanges, skipping ones that do not exist', async () => {
    const { amqpUrl } = testInfra();
    const exchange = testExchange('cleanup');
    const queue = `${exchange}.q`;
    const connection = await amqp.connect(amqpUrl);
    const channel = await connection.createChannel();
    channel.on('error', () => {}); // checkQueue on a missing queue closes this channel with a 404
    await channel.assertExchange(exchange, 'topic', { durable: false });
    await channel.assertQueue(queue, { durable: false });
    await channel.bindQueue(queue, exchange, '#');

    await deleteAmqpObjects(amqpUrl, {
      queues: [`${queue}.missing`, queue],
      exchanges: [`${exchange}.missing`, exchange],
    });

    await expect(channel.checkQueue(queue)).rejects.toThrow(/NOT_FOUND/);
    const probe = await connection.createChannel();
    probe.on('error', () => {});
    await expect(probe.checkExchange(exchange)).rejects.toThrow(/NOT_FOUND/);
    await connection.close();
  });

  it('does not even connect when given nothing to delete', async () => {
    await expect(deleteAmqpObjects('amqp://nowhere.invalid', {})).resolves.toBeUndefined();
  });
});

it('uniqueName is safe as an unquoted database name', () => {
  expect(uniqueName('X-Y')).toMatch(/^[a-z0-9_]+$/);
});
