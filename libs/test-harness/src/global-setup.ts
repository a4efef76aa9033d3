import { INFRA_ENV } from './infra';
import type { TestInfra } from './infra';
import { rememberContainers, stopContainers } from './setup/containers';
import { dockerOnce, locateService } from './setup/locate';
import { newRunId } from './setup/run-id';
import { SERVICES } from './setup/services';

/**
 * Finds PostgreSQL, Redis and RabbitMQ for the whole jest run and hands their URLs and a fresh run id
 * to the workers through process.env (workers are forked after this runs, so they inherit it).
 */
export default async function globalSetup(): Promise<void> {
  const hasDocker = dockerOnce();
  const results = await Promise.allSettled(SERVICES.map((spec) => locateService(spec, hasDocker)));

  const started = results.flatMap((r) =>
    r.status === 'fulfilled' && r.value.container ? [r.value.container] : [],
  );
  rememberContainers(started);
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [reasonOf(r.reason)] : []));
  if (failures.length > 0) {
    // Jest skips teardown when setup throws, so stop what we started now.
    await stopContainers();
    const error = new Error(failures.join('\n'));
    // Jest prints the stack; for a missing service the sentence alone says everything useful.
    error.stack = error.message;
    throw error;
  }

  const infra: TestInfra = { runId: newRunId(), pgUrl: '', redisUrl: '', amqpUrl: '' };
  SERVICES.forEach((spec, i) => {
    const result = results[i];
    if (result?.status === 'fulfilled') infra[spec.key] = result.value.url;
  });
  for (const [key, envName] of Object.entries(INFRA_ENV)) {
    process.env[envName] = infra[key as keyof TestInfra];
  }
}

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
