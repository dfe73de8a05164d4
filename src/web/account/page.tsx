import type { Context } from 'hono';
import type { WorkspaceRole, WorkspaceSummary } from '../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { storedSelection } from '../../mcp/tools/toolsets.js';
import type { AccessTokenView } from '../../teams/access-token-list.js';
import type { AppWithPermissions } from '../../teams/app-permissions.js';
import { csrfField } from '../csrf.js';
import { FormError, Notice } from '../kit/fields.js';
import { PermissionList } from '../kit/permissions.js';
import { CardTable } from '../kit/table.js';
import { Time } from '../kit/time.js';
import { ToolsetChoice, toolsetWords } from '../kit/toolsets.js';
import { Layout } from '../layout.js';
import { AccessTokensSection, type TokenFormState, type TokenWorkspace } from './access-tokens.js';

const ROLE_NAMES: Record<WorkspaceRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** A workspace as the account page lists it, with the API user the person acts as there. */
export interface AccountWorkspace extends WorkspaceSummary {
  upstreamUserId: string;
}

export function AccountPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  workspaces: AccountWorkspace[];
  apps: AppWithPermissions[];
  tokens: AccessTokenView[];
  tokenWorkspaces: TokenWorkspace[];
  tokenForm?: TokenFormState;
  notice?: string | null;
  /** A refused form that has no section of its own to show it (a connected app's tools). */
  error?: string | null;
}) {
  const { c, user } = props;
  return (
    <Layout title="Account" signedInAs={user.email} csrfToken={c.get('csrfToken')} localTimes>
      <h1>Your account</h1>
      <Notice message={props.notice} />
      <FormError id="account-error" message={props.error ?? undefined} />
      <p>
        Signed in as <strong class="token">{user.email}</strong>.
      </p>
      <h2>Workspaces</h2>
      <p class="muted">
        Tool calls made in a workspace use its linked API credentials. Your personal workspace is yours alone.
        The API user ID is the name the Social Intelligence API files your searches and usage under in that
        workspace.
      </p>
      <WorkspaceTable workspaces={props.workspaces} />
      <p class="actions">
        <a href="/workspaces/new">Create a team</a>
        <a href="/connect">Connect a client</a>
      </p>
      <ConnectedApps c={c} apps={props.apps} />
      <AccessTokensSection
        c={c}
        tokens={props.tokens}
        workspaces={props.tokenWorkspaces}
        {...(props.tokenForm ? { form: props.tokenForm } : {})}
      />
      <h2>Password and sessions</h2>
      <p>
        <a href="/account/password">Change password</a>
      </p>
      <p class="muted">
        Signed in on a device you no longer use, or worried someone else is? Sign out everywhere ends every
        browser session, this one included, and disconnects every connected app (connect them again
        afterwards).
      </p>
      <form method="post" action="/sign-out-everywhere" class="actions">
        {csrfField(c)}
        <button type="submit" class="secondary">
          Sign out everywhere
        </button>
      </form>
    </Layout>
  );
}

function WorkspaceTable({ workspaces }: { workspaces: AccountWorkspace[] }) {
  return (
    <CardTable
      caption="Your workspaces"
      rows={workspaces}
      columns={[
        {
          label: 'Workspace',
          cell: (w) => (
            <>
              <span class="token">{w.name}</span>
              {w.kind === 'team' ? <span class="muted"> · team</span> : null}
            </>
          ),
        },
        { label: 'Your role', cell: (w) => ROLE_NAMES[w.role] },
        { label: 'API user ID', cell: (w) => <code>{w.upstreamUserId}</code> },
        {
          label: 'API credentials',
          cell: (w) => (
            <a href={`/account/credentials?workspace=${encodeURIComponent(w.id)}`}>
              {w.hasCredential ? 'Linked — manage' : 'Not linked — link credentials'}
            </a>
          ),
        },
        {
          label: 'Manage',
          cell: (w) => (
            <a href={`/workspaces/${encodeURIComponent(w.id)}`}>
              {w.kind === 'team' ? 'Team and members' : 'Workspace'}
              <span class="visually-hidden"> of {w.name}</span>
            </a>
          ),
        },
      ]}
    />
  );
}

/** Each connected app with what it can do now (granted and allowed by the team), in plain words. */
function ConnectedApps({ c, apps }: { c: Context<AppEnv>; apps: AppWithPermissions[] }) {
  return (
    <section aria-labelledby="apps-heading">
      <h2 id="apps-heading">Connected apps</h2>
      {apps.length === 0 ? (
        <p>
          No AI client is connected yet. <a href="/connect">Connect one</a>: it asks you here before it gets
          any access.
        </p>
      ) : (
        <div class="columns">
          {apps.map((app) => (
            <article class="card" aria-label={app.clientName}>
              <h3 class="token">{app.clientName}</h3>
              <p class="muted">
                In <span class="token">{app.workspaceName}</span> · connected <Time ms={app.createdAt} /> ·
                last used <Time ms={app.lastUsedAt} />
              </p>
              <PermissionList allowed={app.effective} blocked={app.blocked} />
              <p>Tools: {toolsetWords(app.toolsets, app.readOnly)}</p>
              <details>
                <summary>
                  Change the tools it sees<span class="visually-hidden"> ({app.clientName})</span>
                </summary>
                <form method="post" action="/account/apps/toolsets" class="stack">
                  {csrfField(c)}
                  <input type="hidden" name="grant" value={app.grantId} />
                  <ToolsetChoice
                    idPrefix={`app-${app.grantId}`}
                    checked={storedSelection(app.toolsets, app.readOnly).toolsets}
                    readOnly={app.readOnly}
                  />
                  <div class="actions">
                    <button type="submit" class="secondary" aria-label={`Save tools of ${app.clientName}`}>
                      Save tools
                    </button>
                  </div>
                </form>
              </details>
            </article>
          ))}
        </div>
      )}
      <p>
        <a href="/account/apps">Disconnect an app</a>
      </p>
    </section>
  );
}
