export { createDb, ensureDatabase, pingDb, isConnectionError, type Sql, type Tx } from './client';
export { migrate, loadMigrations, type Migration } from './migrate';
export { inTransaction } from './transaction';
