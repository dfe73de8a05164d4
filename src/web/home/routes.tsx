import { Hono } from 'hono';
import { listWorkspacesForUser } from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv } from '../../http/env.js';
import { connectedAppsOf } from '../../teams/app-permissions.js';
import { privatePage } from '../layout.js';
import { HomePage } from './page.js';

export interface HomeOptions {
  config: Config;
  db: Store;
  /** One line per tool (name and summary). */
  tools: ReadonlyArray<{ name: string; summary: string }>;
}

/** The landing page: the same for everyone signed out, about you when signed in. */
export function homeRoutes(options: HomeOptions) {
  const { config, db } = options;
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    const user = c.get('user');
    const me = user
      ? {
          user,
          workspaces: await listWorkspacesForUser(db, user.id),
          apps: await connectedAppsOf(db, user.id),
        }
      : null;
    const page = (
      <HomePage
        c={c}
        mcpUrl={config.resourceUrl}
        sandboxMode={config.sandboxMode}
        tools={options.tools}
        me={me}
      />
    );
    // Signed out it is the same page for everyone; signed in it is someone's own.
    return me ? privatePage(c, page) : c.html(page);
  });
  return app;
}
