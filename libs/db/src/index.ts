export { createDb, ensureDatabase, pingDb, isConnectionError, type Sql, type Tx } from './client';
export { migrate, loadMigrations, NO_TRANSACTION, type Migration } from './migrate';
export { inTransaction } from './transaction';
export { afterCommit, ambientTx, joinable, withAmbient } from './ambient';
export {
  IDEMPOTENCY_KEY_TTL_HOURS,
  idempotencyMigrations,
  keepAnswer,
  keptAnswer,
  lockKey,
  sweepIdempotencyKeys,
  forgetIdempotencyKeys,
  type KeptAnswer,
  type KeyRef,
} from './idempotency-keys';
