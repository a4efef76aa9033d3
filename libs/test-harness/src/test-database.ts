import { testInfra } from './infra';
import { uniqueName } from './names';
import { databaseUrl, dropDatabases, withServer } from './pg-admin';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Prefix of every database the harness creates in a run; global teardown drops whatever is left. */
export function testDatabasePrefix(runId: string): string {
  return `cp_test_${runId}_`;
}

/** A fresh, empty database on the run's PostgreSQL server, named `cp_test_<runId>_<label>_<unique>`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const { pgUrl } = testInfra();
  // uniqueName already starts with the run id and is [a-z0-9_] only, so the name needs no quoting.
  const name = `cp_test_${uniqueName(label)}`;
  await withServer(pgUrl, (sql) => sql.unsafe(`create database ${name}`));
  return {
    name,
    url: databaseUrl(pgUrl, name),
    drop: () => withServer(pgUrl, (sql) => dropDatabases(sql, [name])),
  };
}
