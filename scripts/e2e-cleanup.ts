/**
 * `npm run e2e:cleanup -- <run id>`: deletes through the API what an e2e run created (its accounts
 * with their content, its categories), for the stack E2E_BASE_URL names, as E2E_ADMIN_USERNAME and
 * E2E_ADMIN_PASSWORD (or E2E_ADMIN_KEY). The run id is printed after every run and in summary.md.
 */
import { cleanUpRun } from '../e2e/src/cleanup/cleanup';
import { externalSettings } from '../e2e/src/settings';
import { World } from '../e2e/src/world';

async function main(): Promise<void> {
  const runId = process.argv[2]?.trim().toLowerCase();
  const settings = externalSettings();
  if (!runId || !settings) {
    throw new Error(
      'usage: E2E_BASE_URL=… E2E_ADMIN_USERNAME=… E2E_ADMIN_PASSWORD=… npm run e2e:cleanup -- <run id>',
    );
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const { accounts, categories } = await cleanUpRun(new World(settings.baseUrl, settings.admin), runId, log);
  log(`run ${runId}: ${accounts} accounts erased, ${categories} categories deleted`);
}

main().catch((err: unknown) => {
  process.stderr.write(`e2e:cleanup failed: ${(err as Error).message}\n`);
  process.exit(1);
});
