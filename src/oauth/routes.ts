import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import type { OAuthDeps } from './deps.js';
import { metadataRoutes } from './metadata.js';
import { registerRoutes } from './register.js';
import { revokeRoutes } from './revoke.js';
import { tokenRoutes } from './token.js';

/**
 * The authorization server's machine endpoints: metadata, registration, token, revocation. The
 * authorization endpoint is a browser page and lives in src/web/authorize.tsx.
 */
export function oauthRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  app.route('/', metadataRoutes(deps.config));
  app.route('/', registerRoutes(deps));
  app.route('/', tokenRoutes(deps));
  app.route('/', revokeRoutes(deps));
  return app;
}
