import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import { authorizeRoutes } from './authorize.js';
import type { OAuthDeps } from './deps.js';
import { metadataRoutes } from './metadata.js';
import { registerRoutes } from './register.js';
import { revokeRoutes } from './revoke.js';
import { tokenRoutes } from './token.js';

/** The authorization server: metadata, registration, authorize + consent, token, revocation. */
export function oauthRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  app.route('/', metadataRoutes(deps.config));
  app.route('/', registerRoutes(deps));
  app.route('/', authorizeRoutes(deps));
  app.route('/', tokenRoutes(deps));
  app.route('/', revokeRoutes(deps));
  return app;
}
