import { Hono } from 'hono';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import type { AppEnv } from '../http/env.js';
import type { SecretBox } from '../security/secrets.js';
import { passwordRoutes } from './account/password-routes.js';
import { accountPageRoutes } from './account/routes.js';
import { assetRoutes } from './assets.js';
import { connectRoutes } from './connect/routes.js';
import { credentialRoutes } from './credentials/routes.js';
import { homeRoutes } from './home/routes.js';
import { signInRoutes } from './sign-in/routes.js';
import { signUpRoutes } from './sign-up/routes.js';

export interface WebRoutesDeps {
  config: Config;
  db: Store;
  secrets: SecretBox;
  upstream: { searchUrl: string; agentUrl: string };
  tools: ReadonlyArray<{ name: string; summary: string }>;
}

/** The account-side pages, one folder per feature (the team pages are mounted beside these). */
export function webRoutes(deps: WebRoutesDeps) {
  const app = new Hono<AppEnv>();
  app.route('/', assetRoutes());
  app.route('/', homeRoutes(deps));
  app.route('/', connectRoutes(deps));
  app.route('/', signUpRoutes(deps));
  app.route('/', signInRoutes(deps));
  app.route('/', accountPageRoutes(deps));
  app.route('/', passwordRoutes(deps));
  app.route('/', credentialRoutes(deps));
  return app;
}
