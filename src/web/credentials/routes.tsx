import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  defaultUpstreamUserId,
  getCredentialSummary,
  removeUpstreamCredential,
  saveUpstreamCredential,
  UPSTREAM_USER_ID_MAX_LENGTH,
} from '../../accounts/credentials.js';
import { SharedRateLimiter } from '../../accounts/rate-limits.js';
import {
  canManageCredentials,
  getMembership,
  getPersonalWorkspaceId,
  listWorkspacesForUser,
} from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { metrics } from '../../metrics/index.js';
import type { SecretBox } from '../../security/secrets.js';
import { requestSandboxCredential, verifyUpstreamToken } from '../../upstream/verify-credential.js';
import { csrfGate } from '../kit/csrf-gate.js';
import { MessagePage } from '../kit/message-page.js';
import { privatePage } from '../layout.js';
import { safeNext } from '../next.js';
import { RATE_LIMITS, tooManyAttempts } from '../rate-limits.js';
import { requireUser } from '../session.js';
import { askingApp } from '../sign-in/asking-app.js';
import { CredentialsPage } from './page.js';
import { type CredentialErrors, credentialProblems } from './validate.js';

export interface CredentialRoutesDeps {
  config: Config;
  db: Store;
  secrets: SecretBox;
  /** Where upstream calls go (the real service or the sandbox): credentials are verified there. */
  upstream: { searchUrl: string; agentUrl: string };
}

const WORKSPACE_ID_MAX_LENGTH = 64;

const CREDENTIAL_NOTICES: Record<string, string> = {
  saved: 'Credentials verified and saved.',
  removed: 'Credentials removed. Tool calls in this workspace will fail until you link new ones.',
};

const MANAGERS_ONLY = "Only the workspace's owners and admins can change its credentials.";

/** Linking, replacing and removing a workspace's upstream API credentials. */
export function credentialRoutes(deps: CredentialRoutesDeps) {
  const { config, db, secrets, upstream } = deps;
  const app = new Hono<AppEnv>();
  const gate = csrfGate(config);
  const checks = new SharedRateLimiter(
    db,
    config,
    'credentialChecksPerUser',
    RATE_LIMITS.credentialChecksPerUser,
  );

  /** The workspace the request names (default: personal) if the user is a member of it. */
  const workspaceFor = async (user: SessionUser, requested: string | undefined) => {
    const id = requested
      ? requested.slice(0, WORKSPACE_ID_MAX_LENGTH)
      : await getPersonalWorkspaceId(db, user.id);
    if (!id) return null;
    const membership = await getMembership(db, id, user.id);
    return membership ? { id, ...membership } : null;
  };
  type Workspace = NonNullable<Awaited<ReturnType<typeof workspaceFor>>>;

  const notAWorkspace = (c: Context<AppEnv>, user: SessionUser) =>
    privatePage(
      c,
      <MessagePage
        title="Workspace not found"
        message="There is no such workspace, or you are not a member of it."
        signedInAs={user.email}
        csrfToken={c.get('csrfToken')}
        link={{ href: '/account', text: 'Back to your account' }}
      />,
      404,
    );

  const render = async (
    c: Context<AppEnv>,
    user: SessionUser,
    workspace: Workspace,
    options: {
      next: string | null;
      notice?: string | null;
      errors?: CredentialErrors;
      upstreamUserId?: string;
    },
    status: ContentfulStatusCode = 200,
  ) => {
    const credential = await getCredentialSummary(db, workspace.id);
    return privatePage(
      c,
      <CredentialsPage
        c={c}
        user={user}
        workspace={{ id: workspace.id, name: workspace.name, kind: workspace.kind, role: workspace.role }}
        workspaces={await listWorkspacesForUser(db, user.id)}
        credential={credential}
        canManage={canManageCredentials(workspace.role)}
        sandboxMode={config.sandboxMode}
        next={options.next}
        connecting={await askingApp(db, options.next)}
        justLinked={c.req.query('done') === 'saved' && credential !== null && options.next === null}
        mcpUrl={config.resourceUrl}
        upstreamUserId={
          options.upstreamUserId ?? workspace.upstreamUserId ?? credential?.upstreamUserId ?? ''
        }
        notice={options.notice ?? null}
        errors={options.errors ?? {}}
      />,
      status,
    );
  };

  app.get('/account/credentials', async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const workspace = await workspaceFor(user, c.req.query('workspace'));
    if (!workspace) return notAWorkspace(c, user);
    const done = c.req.query('done');
    return render(c, user, workspace, {
      next: safeNext(c.req.query('next'), config.publicUrl),
      notice: done ? (CREDENTIAL_NOTICES[done] ?? null) : null,
    });
  });

  const afterChange = (c: Context<AppEnv>, workspaceId: string, done: string, next: string | null) =>
    c.redirect(
      next ?? `/account/credentials?${new URLSearchParams({ workspace: workspaceId, done }).toString()}`,
      303,
    );

  app.post('/account/credentials', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedForm(c);
    if (!form) return gate.refused(c);
    const workspace = await workspaceFor(user, form.workspace);
    if (!workspace) return notAWorkspace(c, user);
    const next = safeNext(form.next, config.publicUrl);
    const sandbox = form.action === 'sandbox';
    const enteredUserId = (form.upstream_user_id ?? '').trim().slice(0, UPSTREAM_USER_ID_MAX_LENGTH + 1);
    const refuse = (errors: CredentialErrors, status: ContentfulStatusCode) =>
      render(c, user, workspace, { next, errors, upstreamUserId: enteredUserId }, status);

    if (!canManageCredentials(workspace.role)) return refuse({ form: MANAGERS_ONLY }, 403);

    let token: string;
    let upstreamUserId: string;
    if (sandbox) {
      if (!config.sandboxMode)
        return refuse({ form: 'Sandbox credentials exist only in sandbox mode.' }, 400);
      const decision = await checks.hit(user.id);
      if (!decision.allowed) return refuse({ form: tooManyAttempts(c, decision.retryAfterSeconds) }, 429);
      const created = await requestSandboxCredential(upstream.searchUrl);
      if (!created) {
        return refuse({ form: 'The sandbox did not hand out a credential. Try again in a moment.' }, 503);
      }
      token = created;
      upstreamUserId = defaultUpstreamUserId(user.id);
    } else {
      token = (form.token ?? '').trim();
      upstreamUserId = enteredUserId;
      const errors = credentialProblems(token, upstreamUserId);
      if (errors.token || errors.upstreamUserId) return refuse(errors, 400);
      const decision = await checks.hit(user.id);
      if (!decision.allowed) return refuse({ form: tooManyAttempts(c, decision.retryAfterSeconds) }, 429);
    }

    const verdict = await verifyUpstreamToken({
      searchUrl: upstream.searchUrl,
      tokenHeader: config.upstream.tokenHeader,
      token,
      observe: metrics.observeUpstream,
    });
    if (verdict.status === 'rejected') {
      c.get('log').info(
        { userId: user.id, workspaceId: workspace.id, upstreamStatus: verdict.httpStatus },
        'upstream rejected token',
      );
      return refuse(
        {
          token: `The API rejected this token (HTTP ${verdict.httpStatus}). Check that you copied all of it and that it has not been rotated. Nothing was saved.`,
        },
        400,
      );
    }
    if (verdict.status === 'unavailable') {
      c.get('log').warn(
        { workspaceId: workspace.id, reason: verdict.reason },
        'could not verify upstream token',
      );
      return refuse(
        {
          form: 'We could not verify the token with the API just now, so nothing was saved. Please try again in a moment.',
        },
        503,
      );
    }
    await saveUpstreamCredential(db, secrets, {
      workspaceId: workspace.id,
      linkedBy: user.id,
      token,
      upstreamUserId,
      verifiedAt: Date.now(),
    });
    c.get('log').info({ userId: user.id, workspaceId: workspace.id, sandbox }, 'upstream credential linked');
    return afterChange(c, workspace.id, 'saved', next);
  });

  app.post('/account/credentials/remove', gate.sameOrigin, async (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const form = await gate.checkedForm(c);
    if (!form) return gate.refused(c);
    const workspace = await workspaceFor(user, form.workspace);
    if (!workspace) return notAWorkspace(c, user);
    if (!canManageCredentials(workspace.role)) {
      return render(c, user, workspace, { next: null, errors: { form: MANAGERS_ONLY } }, 403);
    }
    await removeUpstreamCredential(db, workspace.id, user.id);
    c.get('log').info({ userId: user.id, workspaceId: workspace.id }, 'upstream credential removed');
    return afterChange(c, workspace.id, 'removed', null);
  });

  return app;
}
