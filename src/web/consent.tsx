import type { Child } from 'hono/jsx';
import type { ToolSelection } from '../mcp/tools/toolsets.js';
import type { Scope } from '../oauth/scopes.js';
import { SCOPE_DESCRIPTIONS } from '../oauth/scopes.js';
import { SelectField } from './kit/fields.js';
import { ToolsetChoice } from './kit/toolsets.js';
import { Layout } from './layout.js';

export interface ConsentPageProps {
  signedInAs: string;
  csrf: Child;
  csrfToken: string | null;
  clientName: string;
  /** For Client ID Metadata Documents: the https host that vouches for the client. */
  verifiedHost: string | null;
  redirectHost: string;
  loopbackOnly: boolean;
  /** The requested scopes: one checkbox each, ticked; the person may untick some. */
  scopes: readonly Scope[];
  /** Requested scopes the person has not allowed this app before (a step-up asks for these). */
  newScopes: readonly Scope[];
  /** The tools pre-ticked: what the client asked for, else what was chosen for it before. */
  tools: ToolSelection;
  /** Workspaces where the person's team role leaves some requested scopes out. */
  teamLimits: ReadonlyArray<{ workspace: string; excluded: readonly Scope[] }>;
  workspaces: Array<{ id: string; name: string; kind: string }>;
  request: string;
  /** Workspaces of the user that have no credentials yet, with a link to link them. */
  unlinkedCount: number;
  /** Why the form is shown again (nothing ticked). */
  error: string | null;
}

/**
 * The consent dialog (docs/oauth.md, Rules worth knowing): who asks, where it sends you back, what it may do
 * in plain words (writes spend credits; each a ticked box the person may untick), and in which workspace.
 */
export function ConsentPage(props: ConsentPageProps) {
  return (
    <Layout title="Allow access" signedInAs={props.signedInAs} csrfToken={props.csrfToken}>
      <h1>
        Allow <span>{props.clientName}</span> to use your Social Intel account?
      </h1>
      <div class="card">
        {props.verifiedHost ? (
          <p>
            This app is identified by <strong>{props.verifiedHost}</strong>.
          </p>
        ) : (
          <p class="notice warn">
            The name “{props.clientName}” was given by the app itself and has not been verified. Allow only if
            you just started connecting this app.
          </p>
        )}
        <p>
          After you decide, you go back to <strong>{props.redirectHost}</strong>.
        </p>
        {props.loopbackOnly ? (
          <p class="notice warn">
            This app runs on your own computer (it returns to {props.redirectHost}). If you did not just start
            it, choose Deny.
          </p>
        ) : null}
      </div>
      {props.error ? (
        <div id="consent-error" class="notice error-summary" role="alert">
          {props.error}
        </div>
      ) : null}
      <form method="post" action="/authorize/decision" class="stack">
        {props.csrf}
        <input type="hidden" name="request" value={props.request} />
        <fieldset class="card" aria-describedby={props.error ? 'consent-error' : undefined}>
          <legend>It will be able to</legend>
          {props.scopes.map((scope) => (
            <label class="check">
              <input type="checkbox" name="scope" value={scope} checked /> {SCOPE_DESCRIPTIONS[scope]}{' '}
              <code class="muted">{scope}</code>
              {props.newScopes.includes(scope) ? (
                <strong> (new: not allowed to this app before)</strong>
              ) : null}
            </label>
          ))}
          <p class="hint">Untick what you do not want to allow. The app can ask again later.</p>
          {props.teamLimits.map((limit) => (
            <p class="hint">
              In {limit.workspace}, your team role does not include:{' '}
              {limit.excluded.map((s) => SCOPE_DESCRIPTIONS[s]).join('; ')}. Those are left out there; a team
              admin can grant them.
            </p>
          ))}
        </fieldset>
        <ToolsetChoice
          idPrefix="consent"
          checked={props.tools.toolsets}
          readOnly={props.tools.readOnly}
          legend="Tools it will see"
        />
        <SelectField
          id="consent-workspace"
          name="workspace"
          label="Workspace"
          options={props.workspaces.map((w) => ({ value: w.id, label: workspaceLabel(w) }))}
          hint="Tool calls use this workspace's API credentials and are recorded there."
          required
        />
        {props.unlinkedCount > 0 ? (
          <p class="muted">
            {props.unlinkedCount} of your workspaces have no API credentials yet and are not listed.{' '}
            <a href="/account/credentials">Link credentials</a>
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" name="decision" value="allow">
            Allow
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}

/** An authorization request that cannot be sent back to the app (bad client or redirect URI). */
export function AuthorizeErrorPage({ message, signedInAs }: { message: string; signedInAs?: string | null }) {
  return (
    <Layout title="Cannot connect the app" signedInAs={signedInAs ?? null}>
      <h1>This app cannot connect</h1>
      <p class="error" role="alert">
        {message}
      </p>
      <p>
        Start the connection again from your AI app. If this keeps happening, the app's developer needs to fix
        it.
      </p>
    </Layout>
  );
}

/** "Personal" stays as it is; another name of a personal workspace gets "(personal)" after it. */
function workspaceLabel(w: { name: string; kind: string }): string {
  return w.kind === 'personal' && w.name.toLowerCase() !== 'personal' ? `${w.name} (personal)` : w.name;
}
