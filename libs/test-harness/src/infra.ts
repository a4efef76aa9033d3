export interface TestInfra {
  pgUrl: string;
  redisUrl: string;
  amqpUrl: string;
  runId: string;
}

/** The variables global setup hands to every jest worker. */
export const INFRA_ENV = {
  runId: 'TEST_RUN_ID',
  pgUrl: 'TEST_PG_URL',
  redisUrl: 'TEST_REDIS_URL',
  amqpUrl: 'TEST_AMQP_URL',
} as const satisfies Record<keyof TestInfra, string>;

const RUN_ID = /^[a-z0-9]{4,12}$/;

/** Where this test run's PostgreSQL, Redis and RabbitMQ live, as found by the harness's global setup. */
export function testInfra(): TestInfra {
  const missing = Object.values(INFRA_ENV).filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `The test infrastructure is not set up (${missing.join(', ')} missing): run jest from the repository root so the global setup in libs/test-harness runs.`,
    );
  }
  const runId = process.env[INFRA_ENV.runId] ?? '';
  if (!RUN_ID.test(runId)) {
    throw new Error(`${INFRA_ENV.runId} must be 4–12 characters of [a-z0-9], got "${runId}".`);
  }
  return {
    runId,
    pgUrl: process.env[INFRA_ENV.pgUrl] ?? '',
    redisUrl: process.env[INFRA_ENV.redisUrl] ?? '',
    amqpUrl: process.env[INFRA_ENV.amqpUrl] ?? '',
  };
}
