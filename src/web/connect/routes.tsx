import { Hono } from 'hono';
import { listWorkspacesForUser } from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { AppEnv } from '../../http/env.js';
import { privatePage } from '../layout.js';
import { ConnectPage } from './page.js';
import { clientSnippets } from './snippets.js';

/** The "connect a client" page: open to everyone; signed in, it also says what is still missing. */
export function connectRoutes(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const app = new Hono<AppEnv>();
  const snippets = clientSnippets(config.resourceUrl);

  app.get('/connect', (c) => {
    const user = c.get('user');
    const hasCredentials = user ? listWorkspacesForUser(db, user.id).some((w) => w.hasCredential) : null;
    return privatePage(
      c,
      <ConnectPage
        c={c}
        user={user}
        snippets={snippets}
        hasCredentials={hasCredentials}
        sandboxMode={config.sandboxMode}
      />,
    );
  });

  return app;
}
