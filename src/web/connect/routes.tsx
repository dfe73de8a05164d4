import { Hono } from 'hono';
import { listWorkspacesForUser } from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv } from '../../http/env.js';
import { isToolset, TOOLSETS } from '../../mcp/tools/toolsets.js';
import { privatePage } from '../layout.js';
import type { ToolChoice } from './automation.js';
import { ConnectPage } from './page.js';
import { clientSnippets } from './snippets.js';
import { waysInSnippets } from './ways-in-snippets.js';

/**
 * The "connect a client" page: open to everyone; signed in, it also says what is still missing. With
 * `?workspace=<a team of yours>` (where creating a team leads) it starts with that team's next steps.
 */
export function connectRoutes(deps: { config: Config; db: Store }) {
  const { config, db } = deps;
  const app = new Hono<AppEnv>();
  const snippets = clientSnippets(config.resourceUrl);
  const { tokenHeader, userHeader } = config.upstream;
  const ways = waysInSnippets(config.resourceUrl, { tokenHeader, userHeader });
  const headers = { tokenHeader, userHeader, accepted: config.mcp.acceptUpstreamHeaders };

  app.get('/connect', async (c) => {
    const user = c.get('user');
    const workspaces = user ? await listWorkspacesForUser(db, user.id) : [];
    const asked = c.req.query('workspace');
    const team = workspaces.find((w) => w.id === asked && w.kind === 'team') ?? null;
    return privatePage(
      c,
      <ConnectPage
        c={c}
        user={user}
        snippets={snippets}
        ways={ways}
        headers={headers}
        hasCredentials={user ? workspaces.some((w) => w.hasCredential) : null}
        sandboxMode={config.sandboxMode}
        choice={toolChoice(c.req.queries('toolset'), c.req.query('readonly'))}
        team={team ? { ...team, justCreated: c.req.query('done') === 'team_created' } : null}
      />,
    );
  });

  return app;
}

/** The URL builder's choice from the query: null toolsets until the form was sent. */
function toolChoice(toolsets: string[] | undefined, readOnly: string | undefined): ToolChoice {
  const sent = toolsets !== undefined || readOnly !== undefined;
  const chosen = new Set((toolsets ?? []).filter(isToolset));
  return { toolsets: sent ? TOOLSETS.filter((t) => chosen.has(t)) : null, readOnly: readOnly === 'on' };
}
