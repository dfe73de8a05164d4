import type { Logger } from '../logger.js';

/** Variables every request carries through the Hono context. Parts extend it with their own. */
export interface AppVariables {
  requestId: string;
  log: Logger;
}

export interface AppEnv {
  Variables: AppVariables;
}
