import { Hono } from 'hono';
import { defaultUpstreamUserId } from '../../accounts/credentials.js';
import { getMembership, listWorkspacesForUser } from '../../accounts/workspaces.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv } from '../../http/env.js';
import { connectedAppsOf } from '../../teams/app-permissions.js';
import { privatePage } from '../layout.js';
import { requireUser } from '../session.js';
import { AccountPage } from './page.js';

const ACCOUNT_NOTICES: Record<string, string> = {
  team_deleted: 'Team deleted.',
  left_team: 'You left the team. Your connected apps there were disconnected.',
  password_changed:
    'Password changed. Your other browsers are signed out and your connected apps were disconnected: connect them again.',
  password_changed_apps_kept:
    'Password changed. Your other browsers are signed out; your connected apps stay connected.',
};

/** The account overview: workspaces, connected apps, sessions. */
export function accountPageRoutes(deps: { db: Store }) {
  const { db } = deps;
  const app = new Hono<AppEnv>();

  app.get('/account', async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const done = c.req.query('done');
    const notice = c.req.query('welcome')
      ? 'Your account is ready. Next, link your API credentials so your AI clients can use the tools.'
      : done
        ? (ACCOUNT_NOTICES[done] ?? null)
        : null;
    const workspaces = await Promise.all(
      (await listWorkspacesForUser(db, user.id)).map(async (w) => ({
        ...w,
        upstreamUserId:
          (await getMembership(db, w.id, user.id))?.upstreamUserId ?? defaultUpstreamUserId(user.id),
      })),
    );
    return privatePage(
      c,
      <AccountPage
        c={c}
        user={user}
        workspaces={workspaces}
        apps={await connectedAppsOf(db, user.id)}
        notice={notice}
      />,
    );
  });

  return app;
}
