export {
  clientSubject,
  EVERYTHING,
  grantSubject,
  type InvalidationHandler,
  type InvalidationWatch,
  memberSubject,
  parseSubject,
  type Subject,
  workspaceSubject,
} from './invalidation.js';
export { moduleWorker } from './module-worker.js';
export { isPostgresUrl, openMigratedStore, type StoreLocation } from './open.js';
export { openPostgresStore } from './postgres.js';
export {
  atomically,
  changed,
  first,
  forUpdate,
  isUniqueViolation,
  isUnstorableText,
  scalar,
  statementRows,
} from './query.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite.js';
export { TransactionEndedError, TransactionMisuseError } from './transaction-scope.js';
export type {
  Engine,
  NotificationHandler,
  OpenStore,
  Orm,
  SqliteSharing,
  Store,
  StoreOptions,
  Tables,
} from './types.js';
export { isDatabaseUnavailable } from './unavailable.js';
