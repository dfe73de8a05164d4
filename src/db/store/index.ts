export { isPostgresUrl, openMigratedStore, type StoreLocation } from './open.js';
export { openPostgresStore } from './postgres.js';
export { first, forUpdate, isUniqueViolation } from './query.js';
export { openSqliteStore } from './sqlite.js';
export { TransactionEndedError, TransactionMisuseError } from './transaction-scope.js';
export type { Engine, OpenStore, Orm, Store, Tables } from './types.js';
