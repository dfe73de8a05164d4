import { Hono } from 'hono';
import type { Store } from '../state/store.js';
import { accountRoutes } from './account.js';
import type { SearchEnv } from './common.js';
import { expertRoutes } from './expert.js';
import { keywordRoutes } from './keyword.js';
import { userRoutes } from './user.js';

/** The search host ({base_url}): keyword, user and expert searches, usage, setup, credits. */
export function searchHost(store: Store): Hono<SearchEnv> {
  const app = new Hono<SearchEnv>();
  app.route('/', keywordRoutes(store));
  app.route('/', userRoutes(store));
  app.route('/', expertRoutes(store));
  app.route('/', accountRoutes(store));
  return app;
}
