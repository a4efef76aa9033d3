import { runId } from '../run-id';
import { externalSettings } from '../settings';
import { World } from '../world';
import { cleanUpRun } from './cleanup';

/** jest's globalTeardown with E2E_CLEANUP=1: the run's accounts and categories go when it ends. */
export default async function cleanUpAfterRun(): Promise<void> {
  const settings = externalSettings();
  if (!settings) return;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  await cleanUpRun(new World(settings.baseUrl, settings.admin), runId(), log);
}
