/**
 * Imported first by the benches that start the e2e suite's owned stack: where it finds PostgreSQL,
 * Redis and RabbitMQ (BENCH_PG_URL, BENCH_REDIS_URL, BENCH_AMQP_URL, else this machine's), a run id of
 * its own for what it creates, and quiet services. The stack reads them when it starts.
 */
import { randomBytes } from 'node:crypto';

process.env.TEST_PG_URL ??= process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.TEST_REDIS_URL ??= process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
process.env.TEST_AMQP_URL ??= process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
process.env.TEST_RUN_ID ??= `bench${randomBytes(3).toString('hex')}`;
process.env.E2E_LOG_LEVEL ??= 'warn';
