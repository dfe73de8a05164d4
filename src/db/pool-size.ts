/**
 * Connections each instance keeps to PostgreSQL unless DATABASE_POOL_SIZE says otherwise: the store's
 * fallback and the variable's default (docs/configuration.md). N instances hold N times this many, which
 * must stay under the database's `max_connections`.
 */
export const DEFAULT_POOL_SIZE = 10;
