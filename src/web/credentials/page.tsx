import type { Context } from 'hono';
import type { CredentialSummary } from '../../accounts/credentials.js';
import { UPSTREAM_TOKEN_MAX_LENGTH, UPSTREAM_USER_ID_MAX_LENGTH } from '../../accounts/credentials.js';
import type { WorkspaceRole, WorkspaceSummary } from '../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { csrfField } from '../csrf.js';
import { CopyLine } from '../kit/copy.js';
import { Field, FormError, Notice } from '../kit/fields.js';
import { Time } from '../kit/time.js';
import { Layout } from '../layout.js';
import type { AskingApp } from '../sign-in/asking-app.js';
import type { CredentialErrors } from './validate.js';

export interface CredentialsPageProps {
  c: Context<AppEnv>;
  user: SessionUser;
  workspace: { id: string; name: string; kind: 'personal' | 'team'; role: WorkspaceRole };
  workspaces: WorkspaceSummary[];
  credential: CredentialSummary | null;
  canManage: boolean;
  sandboxMode: boolean;
  next: string | null;
  /** The app whose authorization sent the person here to link credentials first. */
  connecting: AskingApp | null;
  /** Just linked, with nowhere else to go: show how to add the server to a client. */
  justLinked: boolean;
  mcpUrl: string;
  upstreamUserId: string;
  notice?: string | null;
  errors?: CredentialErrors;
}

/** What the user ID is for, in words (the header that carries it is an implementation detail). */
const USER_ID_MEANING =
  'The name the Social Intelligence API files your searches, runs and usage under. Every tool call you make here is sent as this user.';

export function CredentialsPage(props: CredentialsPageProps) {
  const { c, user, workspace, credential, errors = {} } = props;
  const hidden = () => (
    <>
      {csrfField(c)}
      <input type="hidden" name="workspace" value={workspace.id} />
      {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
    </>
  );
  return (
    <Layout
      title="API credentials"
      signedInAs={user.email}
      csrfToken={c.get('csrfToken')}
      copyButtons
      localTimes
    >
      <h1>API credentials</h1>
      {props.connecting ? (
        <div class="notice" role="note">
          <p>
            <strong>{props.connecting.name}</strong> is waiting to connect. Link your API credentials below;
            then you go straight back to approve it.
          </p>
        </div>
      ) : null}
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
      {props.justLinked ? <NextStep mcpUrl={props.mcpUrl} /> : null}

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
                <br />
                <span class="muted">{USER_ID_MEANING}</span>
              </dd>
              <dt>Verified</dt>
              <dd>
                <Time ms={credential.verifiedAt} />
              </dd>
              {credential.linkedByEmail ? (
                <>
                  <dt>Linked by</dt>
                  <dd class="token">{credential.linkedByEmail}</dd>
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
              hint={`The user identifier your API account gives you. ${USER_ID_MEANING}`}
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
                Sandbox mode: this server talks to the built-in emulator. One click makes a sandbox key (with
                the producer permission, so every tool can be tried) and links it.
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

/** After linking: the one thing left to do is adding the server to a client. */
function NextStep({ mcpUrl }: { mcpUrl: string }) {
  return (
    <section class="card" aria-labelledby="next-heading">
      <h2 id="next-heading">Next: add this server to your AI client</h2>
      <p>Paste this URL where your client adds a remote MCP server (a “custom connector”):</p>
      <CopyLine id="next-mcp-url" value={mcpUrl} what="the MCP server URL" />
      <p>
        <a href="/connect">Step-by-step for Claude, ChatGPT, VS Code, Cursor and others</a>
      </p>
    </section>
  );
}
