import { testInfra } from './infra';
import { uniqueName } from './names';
import { quoteIdent, withServer } from './pg-admin';

/**
 * A role name of this run, `cp_test_<runId>_<label>_<unique>`. Roles are server-wide, so parallel runs
 * need names of their own; global teardown drops any the run left behind (same prefix as databases).
 */
export function testRoleName(label: string): string {
  return `cp_test_${uniqueName(label)}`;
}

/** Drops the roles (missing ones are fine). Drop the databases they own objects in first. */
export async function dropRoles(names: readonly string[]): Promise<void> {
  await withServer(testInfra().pgUrl, async (sql) => {
    for (const name of names) await sql.unsafe(`drop role if exists ${quoteIdent(name)}`);
  });
}
