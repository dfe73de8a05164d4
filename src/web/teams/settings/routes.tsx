import { Hono } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import { setAccessTokenSettings } from '../../../teams/access-token-settings.js';
import { leaveTeam } from '../../../teams/members.js';
import { setTeamSettings } from '../../../teams/team-settings.js';
import { createTeam, deleteTeam, renameTeam } from '../../../teams/teams.js';
import { one } from '../../kit/form-data.js';
import { privatePage } from '../../layout.js';
import { requireUser } from '../../session.js';
import type { TeamContext } from '../context.js';
import { NewTeamPage } from './new-team-page.js';

/** Creating a team, and the team's own settings: rename, the read setting, leave, delete. */
export function teamSettingsRoutes(t: TeamContext) {
  const { db } = t;
  const app = new Hono<AppEnv>();

  app.get('/workspaces/new', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    return privatePage(c, <NewTeamPage c={c} user={user} />);
  });

  app.post('/workspaces', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const name = one(g.form, 'name', 400);
    const outcome = await createTeam(db, g.user.id, name);
    if (!outcome.ok)
      return privatePage(
        c,
        <NewTeamPage c={c} user={g.user} name={name} error={outcome.message} />,
        outcome.status,
      );
    c.get('log').info({ userId: g.user.id, workspaceId: outcome.value }, 'team created');
    // Next: the connect page, which lists what the new team still needs (credentials, people) and
    // how to add the server to a client.
    const params = new URLSearchParams({ workspace: outcome.value, done: 'team_created' });
    return c.redirect(`/connect?${params.toString()}`, 303);
  });

  app.post('/workspaces/:id/rename', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const name = one(g.form, 'name', 400);
    const outcome = await renameTeam(db, c.req.param('id'), g.user.id, name);
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome, {}, { name });
    return t.back(c, c.req.param('id'), 'renamed');
  });

  app.post('/workspaces/:id/delete', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await deleteTeam(db, c.req.param('id'), g.user.id, one(g.form, 'confirm', 400));
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    c.get('log').info({ userId: g.user.id, workspaceId: c.req.param('id') }, 'team deleted');
    return c.redirect('/account?done=team_deleted', 303);
  });

  app.post('/workspaces/:id/leave', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await leaveTeam(db, c.req.param('id'), g.user.id);
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    return c.redirect('/account?done=left_team', 303);
  });

  app.post('/workspaces/:id/settings', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await setTeamSettings(db, c.req.param('id'), g.user.id, {
      membersReadTeamWork: one(g.form, 'members_read_team_work', 10) === 'on',
    });
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    return t.back(c, c.req.param('id'), 'settings');
  });

  app.post('/workspaces/:id/access-tokens', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await setAccessTokenSettings(db, c.req.param('id'), g.user.id, {
      allowed: one(g.form, 'access_tokens_allowed', 10) === 'on',
      maxDays: one(g.form, 'max_days', 20),
    });
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    return t.back(c, c.req.param('id'), 'settings');
  });

  return app;
}
