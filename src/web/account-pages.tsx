import type { Context } from 'hono';
import type { CredentialSummary } from '../accounts/credentials.js';
import { UPSTREAM_TOKEN_MAX_LENGTH, UPSTREAM_USER_ID_MAX_LENGTH } from '../accounts/credentials.js';
import type { WorkspaceRole, WorkspaceSummary } from '../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import { csrfField } from './csrf.js';
import { Field, FormError, Notice } from './form.js';
import { Layout } from './layout.js';

/** `2026-11-22 02:30 UTC`: unambiguous whatever the reader's locale. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function Time({ ms }: { ms: number }) {
  return <time datetime={new Date(ms).toISOString()}>{formatTime(ms)}</time>;
}

const ROLE_NAMES: Record<WorkspaceRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export function AccountPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  workspaces: WorkspaceSummary[];
  notice?: string | null;
}) {
  const { c, user } = props;
  return (
    <Layout title="Account" signedInAs={user.email} csrfToken={c.get('csrfToken')}>
      <h1>Your account</h1>
      <Notice message={props.notice} />
      <p>
        Signed in as <strong>{user.email}</strong>.
      </p>
      <h2>Workspaces</h2>
      <p class="muted">
        Tool calls made in a workspace use its linked API credentials. Your personal workspace is yours alone.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">Your role</th>
              <th scope="col">API credentials</th>
              <th scope="col">Manage</th>
            </tr>
          </thead>
          <tbody>
            {props.workspaces.map((w) => (
              <tr>
                <td>
                  {w.name}
                  {w.kind === 'team' ? <span class="muted"> · team</span> : null}
                </td>
                <td>{ROLE_NAMES[w.role]}</td>
                <td>
                  <a href={`/account/credentials?workspace=${encodeURIComponent(w.id)}`}>
                    {w.hasCredential ? 'Linked — manage' : 'Not linked — link credentials'}
                  </a>
                </td>
                <td>
                  <a href={`/workspaces/${encodeURIComponent(w.id)}`} aria-label={`Manage ${w.name}`}>
                    {w.kind === 'team' ? 'Team and members' : 'Workspace'}
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="actions">
        <a href="/workspaces/new">Create a team</a>
        <a href="/account/apps">Connected apps</a>
      </p>
      <h2>Sessions</h2>
      <p class="muted">
        Signed in on a device you no longer use? End every session, this one included. Connected AI clients
        keep their own access until you revoke it.
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

export interface CredentialErrors {
  token?: string;
  upstreamUserId?: string;
  form?: string;
}

export function CredentialsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  workspace: { id: string; name: string; kind: 'personal' | 'team'; role: WorkspaceRole };
  workspaces: WorkspaceSummary[];
  credential: CredentialSummary | null;
  canManage: boolean;
  sandboxMode: boolean;
  next: string | null;
  upstreamUserId: string;
  notice?: string | null;
  errors?: CredentialErrors;
}) {
  const { c, user, workspace, credential, errors = {} } = props;
  const hidden = () => (
    <>
      {csrfField(c)}
      <input type="hidden" name="workspace" value={workspace.id} />
      {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
    </>
  );
  return (
    <Layout title="API credentials" signedInAs={user.email} csrfToken={c.get('csrfToken')}>
      <h1>API credentials</h1>
      <p class="lead">
        Your AI clients never see these. Tool calls made in <strong>{workspace.name}</strong> send them to the
        Social Intelligence API on your behalf.
      </p>
      {props.workspaces.length > 1 ? (
        <form method="get" action="/account/credentials" class="actions workspace-picker">
          <label for="workspace">Workspace</label>
          <select id="workspace" name="workspace">
            {props.workspaces.map((w) => (
              <option value={w.id} selected={w.id === workspace.id}>
                {w.name}
              </option>
            ))}
          </select>
          {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
          <button type="submit" class="secondary">
            Show
          </button>
        </form>
      ) : null}
      <Notice message={props.notice} />
      <FormError id="form-error" message={errors.form} />

      <section class="card" aria-labelledby="current-heading">
        <h2 id="current-heading">Linked credentials</h2>
        {credential ? (
          <>
            <dl class="facts">
              <dt>API token</dt>
              <dd>
                <code>••••{credential.tokenLast4}</code> <span class="muted">(last four characters)</span>
              </dd>
              <dt>User ID</dt>
              <dd>
                <code>{credential.upstreamUserId}</code>
              </dd>
              <dt>Verified</dt>
              <dd>
                <Time ms={credential.verifiedAt} />
              </dd>
              {credential.linkedByEmail ? (
                <>
                  <dt>Linked by</dt>
                  <dd>{credential.linkedByEmail}</dd>
                </>
              ) : null}
            </dl>
            {props.canManage ? (
              <form method="post" action="/account/credentials/remove" class="actions">
                {hidden()}
                <button type="submit" class="danger">
                  Remove credentials
                </button>
              </form>
            ) : null}
          </>
        ) : (
          <p>
            No API credentials are linked to this workspace yet: tool calls here will fail until you link
            them.
          </p>
        )}
      </section>

      {props.canManage ? (
        <section aria-labelledby="link-heading">
          <h2 id="link-heading">{credential ? 'Replace credentials' : 'Link credentials'}</h2>
          <p class="muted">
            The token is checked with the API before it is saved, then stored encrypted. It is never shown
            again: only its last four characters.
          </p>
          <form method="post" action="/account/credentials" class="stack" novalidate>
            {hidden()}
            <Field
              id="token"
              name="token"
              label="API token"
              type="password"
              autocomplete="off"
              maxLength={UPSTREAM_TOKEN_MAX_LENGTH}
              error={errors.token}
              autofocus={Boolean(errors.token)}
            />
            <Field
              id="upstream_user_id"
              name="upstream_user_id"
              label="User ID"
              autocomplete="off"
              value={props.upstreamUserId}
              maxLength={UPSTREAM_USER_ID_MAX_LENGTH}
              error={errors.upstreamUserId}
              autofocus={Boolean(errors.upstreamUserId) && !errors.token}
              hint="The user identifier your API account gives you; usage is reported under it."
            />
            <div class="actions">
              <button type="submit">Save credentials</button>
            </div>
          </form>
          {props.sandboxMode ? (
            <form method="post" action="/account/credentials" class="actions sandbox">
              {hidden()}
              <input type="hidden" name="action" value="sandbox" />
              <p class="muted">
                Sandbox mode: this server talks to the built-in emulator. One click makes a sandbox token and
                links it.
              </p>
              <button type="submit" class="secondary">
                Use sandbox credentials
              </button>
            </form>
          ) : null}
        </section>
      ) : (
        <p class="muted">Only the workspace's owners and admins can change its credentials.</p>
      )}
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Layout>
  );
}
