import type { Context } from 'hono';
import { Hono } from 'hono';
import { listWorkspacesForUser } from '../../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import { workspaceAccessTokens } from '../../../teams/access-token-list.js';
import { revokeWorkspaceAccessToken } from '../../../teams/access-tokens.js';
import { connectedAppsOf, workspaceAppsWithPermissions } from '../../../teams/app-permissions.js';
import { revokeOwnApp, revokeWorkspaceApp } from '../../../teams/apps.js';
import { isAdminRole } from '../../../teams/teams.js';
import { one } from '../../kit/form-data.js';
import { privatePage } from '../../layout.js';
import { requireUser } from '../../session.js';
import { ID_MAX_LENGTH, type TeamContext } from '../context.js';
import type { TeamNav } from '../frame.js';
import { teamPath } from '../frame.js';
import { MyAppsPage, WorkspaceAppsPage } from './page.js';

const APP_NOTICES: Record<string, string> = {
  revoked: 'App disconnected. Its next request is refused; it can ask you again.',
  token_revoked: 'Access token revoked. Its next request is refused.',
};

/** Connected apps: a person's own (/account/apps) and, for admins, every app in a workspace. */
export function appRoutes(t: TeamContext) {
  const { db } = t;
  const app = new Hono<AppEnv>();
  const noticeOf = (c: Context<AppEnv>) => APP_NOTICES[c.req.query('done') ?? ''] ?? null;

  const myApps = async (
    c: Context<AppEnv>,
    user: SessionUser,
    extra: { notice?: string | null; error?: string },
    status: 200 | 400 | 403 | 404 | 409 | 410 = 200,
  ) =>
    privatePage(
      c,
      <MyAppsPage
        c={c}
        user={user}
        apps={await connectedAppsOf(db, user.id)}
        adminOf={(await listWorkspacesForUser(db, user.id)).filter((w) => isAdminRole(w.role))}
        notice={extra.notice ?? null}
        error={extra.error ?? null}
      />,
      status,
    );

  const workspaceApps = async (
    c: Context<AppEnv>,
    user: SessionUser,
    ws: TeamNav,
    extra: { notice?: string | null; error?: string },
    status: 200 | 400 | 403 | 404 | 409 | 410 = 200,
  ) =>
    privatePage(
      c,
      <WorkspaceAppsPage
        c={c}
        user={user}
        ws={ws}
        apps={await workspaceAppsWithPermissions(db, ws.id)}
        tokens={await workspaceAccessTokens(db, ws.id)}
        notice={extra.notice ?? null}
        error={extra.error ?? null}
      />,
      status,
    );

  app.get('/account/apps', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    return myApps(c, user, { notice: noticeOf(c) });
  });

  app.post('/account/apps/revoke', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await revokeOwnApp(db, g.user.id, one(g.form, 'grant', ID_MAX_LENGTH));
    if (!outcome.ok) return myApps(c, g.user, { error: outcome.message }, outcome.status);
    return c.redirect('/account/apps?done=revoked', 303);
  });

  app.get('/workspaces/:id/apps', async (c) => {
    const g = await t.viewer(c, 'admin');
    if ('done' in g) return g.done;
    return workspaceApps(c, g.user, g.ws, { notice: noticeOf(c) });
  });

  app.post('/workspaces/:id/apps/revoke', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await revokeWorkspaceApp(
      db,
      c.req.param('id'),
      g.user.id,
      one(g.form, 'grant', ID_MAX_LENGTH),
    );
    if (!outcome.ok) {
      const ws = await t.workspaceOf(c, g.user);
      if (!ws) return t.notFound(c, g.user);
      if (!isAdminRole(ws.role)) return t.adminsOnly(c, g.user, ws);
      return workspaceApps(c, g.user, ws, { error: outcome.message }, outcome.status);
    }
    return c.redirect(`${teamPath({ id: c.req.param('id') })}/apps?done=revoked`, 303);
  });

  app.post('/workspaces/:id/tokens/revoke', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await revokeWorkspaceAccessToken(
      db,
      c.req.param('id'),
      g.user.id,
      one(g.form, 'token', ID_MAX_LENGTH),
    );
    if (!outcome.ok) {
      const ws = await t.workspaceOf(c, g.user);
      if (!ws) return t.notFound(c, g.user);
      if (!isAdminRole(ws.role)) return t.adminsOnly(c, g.user, ws);
      return workspaceApps(c, g.user, ws, { error: outcome.message }, outcome.status);
    }
    return c.redirect(`${teamPath({ id: c.req.param('id') })}/apps?done=token_revoked`, 303);
  });

  return app;
}
