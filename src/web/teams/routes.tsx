import { Hono } from 'hono';
import type { AppEnv } from '../../http/env.js';
import { appRoutes } from './apps/routes.js';
import { auditRoutes } from './audit/routes.js';
import { type TeamRoutesDeps, teamContext } from './context.js';
import { inviteRoutes } from './invites/routes.js';
import { memberRoutes } from './members/routes.js';
import { teamSettingsRoutes } from './settings/routes.js';
import { usageRoutes } from './usage/routes.js';

export type { TeamRoutesDeps };

const TEAM_NOTICES: Record<string, string> = {
  renamed: 'Team renamed.',
  role: 'Role changed.',
  removed: 'Member removed. Their connected apps in this team were disconnected.',
  withdrawn: 'Invite link withdrawn.',
  joined: 'Welcome to the team.',
  policy: 'Member settings saved. They apply from the member’s next tool call.',
  settings: 'Team settings saved. They apply from every member’s next tool call.',
};

/**
 * Team workspaces: the team page, and one folder per feature with its routes
 * beside its pages — members, invites, connected apps, audit trail, usage, the team's settings.
 */
export function teamRoutes(deps: TeamRoutesDeps) {
  const t = teamContext(deps);
  const app = new Hono<AppEnv>();

  app.route('/', teamSettingsRoutes(t));
  app.get('/workspaces/:id', async (c) => {
    const g = await t.viewer(c);
    if ('done' in g) return g.done;
    return t.teamPage(c, g.user, g.ws, { notice: TEAM_NOTICES[c.req.query('done') ?? ''] ?? null });
  });
  app.route('/', memberRoutes(t));
  app.route('/', inviteRoutes(t));
  app.route('/', appRoutes(t));
  app.route('/', auditRoutes(t));
  app.route('/', usageRoutes(t));
  return app;
}
