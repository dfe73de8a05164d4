import type { Logger } from '../logger.js';

/** The signed-in person of a browser request. */
export interface SessionUser {
  id: string;
  email: string;
}

/** Variables every request carries through the Hono context. Parts extend it with their own. */
export interface AppVariables {
  requestId: string;
  /** When the request reached the server, ms since the epoch (./request-id.ts). */
  arrivedAt: number;
  log: Logger;
  /** Set by the session middleware (src/web/session.ts): null when signed out. */
  user: SessionUser | null;
  /**
   * The CSRF token for forms: bound to the session when signed in; for a signed-out browser bound to its
   * token cookie, null until a form (csrfField) issues one.
   */
  csrfToken: string | null;
}

export interface AppEnv {
  Variables: AppVariables;
}
