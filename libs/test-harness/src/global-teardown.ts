import { INFRA_ENV } from './infra';
import { deleteRunKeys, dropRunDatabases, dropRunRoles } from './setup/cleanup';
import { stopContainers } from './setup/containers';

/**
 * Removes what the run left behind: its databases, its Redis keys and any containers setup started.
 * Cleanup problems are reported on stderr, not thrown, so they never turn a green run red.
 */
export default async function globalTeardown(): Promise<void> {
  const runId = process.env[INFRA_ENV.runId];
  const pgUrl = process.env[INFRA_ENV.pgUrl];
  const redisUrl = process.env[INFRA_ENV.redisUrl];
  try {
    if (runId && pgUrl) {
      await bestEffort('drop the test databases', () => dropRunDatabases(pgUrl, runId));
      await bestEffort('drop the test roles', () => dropRunRoles(pgUrl, runId));
    }
    if (runId && redisUrl)
      await bestEffort('delete the test Redis keys', () => deleteRunKeys(redisUrl, runId));
  } finally {
    await stopContainers();
  }
}

async function bestEffort(what: string, act: () => Promise<unknown>): Promise<void> {
  try {
    await act();
  } catch (err) {
    process.stderr.write(
      `test-harness: could not ${what}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
}
