import type { Sql, Tx } from '@community/db';

export interface Deps {
  sql: Sql;
  /** Called after every committed write, so the outbox relay publishes its events at once. */
  afterCommit: () => void;
}

/** Runs `work` in one transaction: the change and its outbox events commit together or not at all. */
export async function transaction<T>(deps: Deps, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = (await deps.sql.begin(work)) as T;
  deps.afterCommit();
  return result;
}
