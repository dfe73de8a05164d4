import { type Context, Hono } from 'hono';
import { defaultUpstreamUserId } from '../../accounts/credentials.js';
import { getMembership, listWorkspacesForUser } from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { isScope } from '../../oauth/scopes.js';
import { accessTokensOf } from '../../teams/access-token-list.js';
import { getAccessTokenSettings } from '../../teams/access-token-settings.js';
import { createAccessToken, revokeOwnAccessToken } from '../../teams/access-tokens.js';
import { connectedAppsOf } from '../../teams/app-permissions.js';
import { setAppToolsets } from '../../teams/apps.js';
import { csrfGate } from '../kit/csrf-gate.js';
import { many, one } from '../kit/form-data.js';
import { toolsetChoiceOf } from '../kit/toolsets.js';
import { privatePage } from '../layout.js';
import { requireUser } from '../session.js';
import { TokenCreatedPage, type TokenFormState } from './access-tokens.js';
import { AccountPage } from './page.js';

const ACCOUNT_NOTICES: Record<string, string> = {
  team_deleted: 'Team deleted.',
  left_team: 'You left the team. Your connected apps there were disconnected.',
  password_changed:
    'Password changed. Your other browsers are signed out and your connected apps were disconnected: connect them again.',
  password_changed_apps_kept:
    'Password changed. Your other browsers are signed out; your connected apps stay connected.',
  token_revoked: 'Access token revoked. Its next request is refused.',
  toolsets_saved: 'Saved: the app sees those tools from its next request.',
};

/** Ids in forms are ours (UUIDs); anything longer names nothing. */
const ID_MAX_LENGTH = 64;

/** The account overview: workspaces, connected apps, access tokens, sessions. */
export function accountPageRoutes(deps: { config: Config; db: Store }) {
  const { db, config } = deps;
  const app = new Hono<AppEnv>();
  const gate = csrfGate(config);

  /** The account page, with a notice, or shown again with a refused form's state or an error. */
  const accountPage = async (
    c: Context<AppEnv>,
    user: SessionUser,
    shown: {
      notice?: string | null;
      tokenForm?: TokenFormState;
      status?: 200 | 400 | 403 | 404 | 409;
      error?: string | null;
    } = {},
  ) => {
    const { notice = null, tokenForm, status = 200, error = null } = shown;
    const listed = await listWorkspacesForUser(db, user.id);
    const workspaces = await Promise.all(
      listed.map(async (w) => ({
        ...w,
        upstreamUserId:
          (await getMembership(db, w.id, user.id))?.upstreamUserId ?? defaultUpstreamUserId(user.id),
      })),
    );
    const tokenWorkspaces = [];
    for (const w of listed.filter((w) => w.hasCredential)) {
      const settings = await getAccessTokenSettings(db, w.id);
      if (settings.allowed) tokenWorkspaces.push({ id: w.id, name: w.name, maxDays: settings.maxDays });
    }
    return privatePage(
      c,
      <AccountPage
        c={c}
        user={user}
        workspaces={workspaces}
        apps={await connectedAppsOf(db, user.id)}
        tokens={await accessTokensOf(db, user.id)}
        tokenWorkspaces={tokenWorkspaces}
        {...(tokenForm ? { tokenForm } : {})}
        notice={notice}
        error={error}
      />,
      status,
    );
  };

  app.get('/account', async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const done = c.req.query('done');
    const notice = c.req.query('welcome')
      ? 'Your account is ready. Next, link your API credentials so your AI clients can use the tools.'
      : done
        ? (ACCOUNT_NOTICES[done] ?? null)
        : null;
    return accountPage(c, user, { notice });
  });

  app.post('/account/tokens', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedFormAll(c);
    if (!form) return gate.refused(c);
    const scopes = many(form, 'scope').filter(isScope);
    const sent = {
      name: one(form, 'name', 200),
      workspace: one(form, 'workspace', ID_MAX_LENGTH),
      days: one(form, 'days', 20),
    };
    const outcome = await createAccessToken(
      db,
      user.id,
      { ...sent, workspaceId: sent.workspace, scopes, ...toolsetChoiceOf(form) },
      config.resourceUrl,
    );
    if (!outcome.ok)
      return accountPage(c, user, {
        tokenForm: {
          error: outcome.message,
          ...(outcome.field ? { field: outcome.field } : {}),
          ...sent,
          scopes,
        },
        status: outcome.status === 410 ? 400 : outcome.status,
      });
    const workspace = (await listWorkspacesForUser(db, user.id)).find((w) => w.id === sent.workspace);
    c.get('log').info({ userId: user.id, workspaceId: sent.workspace }, 'access token created');
    return privatePage(
      c,
      <TokenCreatedPage
        c={c}
        user={user}
        token={outcome.value.token}
        name={sent.name.trim()}
        workspaceName={workspace?.name ?? ''}
        expiresAt={outcome.value.expiresAt}
        mcpUrl={config.resourceUrl}
      />,
    );
  });

  app.post('/account/tokens/revoke', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedFormAll(c);
    if (!form) return gate.refused(c);
    const outcome = await revokeOwnAccessToken(db, user.id, one(form, 'token', ID_MAX_LENGTH));
    if (!outcome.ok) return accountPage(c, user, { status: 404, error: outcome.message });
    return c.redirect('/account?done=token_revoked#tokens-heading', 303);
  });

  app.post('/account/apps/toolsets', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedFormAll(c);
    if (!form) return gate.refused(c);
    const outcome = await setAppToolsets(
      db,
      user.id,
      one(form, 'grant', ID_MAX_LENGTH),
      toolsetChoiceOf(form),
    );
    if (!outcome.ok)
      return accountPage(c, user, {
        status: outcome.status === 410 ? 400 : outcome.status,
        error: outcome.message,
      });
    return c.redirect('/account?done=toolsets_saved#apps-heading', 303);
  });

  return app;
}
