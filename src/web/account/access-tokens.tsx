import type { Context } from 'hono';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../../oauth/scopes.js';
import type { AccessTokenView } from '../../teams/access-token-list.js';
import { DEFAULT_TOKEN_DAYS, TOKEN_NAME_MAX_LENGTH } from '../../teams/access-tokens.js';
import { tokenSnippets } from '../connect/snippets.js';
import { csrfField } from '../csrf.js';
import { CopyBlock, CopyLine } from '../kit/copy.js';
import { Field, FormError, SelectField } from '../kit/fields.js';
import { PermissionList } from '../kit/permissions.js';
import { CardTable } from '../kit/table.js';
import { Time } from '../kit/time.js';
import { ToolsetChoice, toolsetWords } from '../kit/toolsets.js';
import { Layout } from '../layout.js';

/** A workspace a token may be made for: linked credentials, tokens allowed, and its longest lifetime. */
export interface TokenWorkspace {
  id: string;
  name: string;
  maxDays: number;
}

/** What a refused creation sent, shown again with the refusal beside its field. */
export interface TokenFormState {
  error?: string;
  field?: string;
  name?: string;
  workspace?: string;
  days?: string;
  scopes?: readonly Scope[];
}

/**
 * The person's access tokens (for CI jobs and agents without a browser) and the form that makes one:
 * a name, a workspace, an expiry within the workspace's limit, and permissions ticked one by one (none
 * is ticked for them: a token gets exactly what its owner chose).
 */
export function AccessTokensSection(props: {
  c: Context<AppEnv>;
  tokens: AccessTokenView[];
  workspaces: TokenWorkspace[];
  form?: TokenFormState;
}) {
  const { c, form = {} } = props;
  const fieldError = (name: string) => (form.field === name ? form.error : undefined);
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Access tokens</h2>
      <FormError id="token-error" message={form.field ? undefined : form.error} />
      <p class="muted">
        For scripts, CI jobs and agents that cannot open a browser: a token acts as you, in one workspace,
        with the permissions you tick, until it expires or you revoke it. Your team’s rules apply to it as to
        a connected app. It never reveals the workspace’s API credentials.
      </p>
      {props.tokens.length ? (
        <CardTable
          caption="Your access tokens"
          title={0}
          rows={props.tokens}
          columns={[
            { label: 'Token', cell: (t) => <span class="token">{t.name}</span> },
            { label: 'Workspace', cell: (t) => <span class="token">{t.workspaceName}</span> },
            { label: 'What it can do', cell: (t) => <PermissionList allowed={t.scopes} /> },
            { label: 'Tools', cell: (t) => toolsetWords(t.toolsets, t.readOnly) },
            { label: 'Expires', cell: (t) => <Time ms={t.expiresAt} /> },
            { label: 'Last used', cell: (t) => <Time ms={t.lastUsedAt} /> },
            {
              label: '',
              cell: (t) => (
                <form method="post" action="/account/tokens/revoke">
                  {csrfField(c)}
                  <input type="hidden" name="token" value={t.grantId} />
                  <button type="submit" class="danger small" aria-label={`Revoke ${t.name}`}>
                    Revoke
                  </button>
                </form>
              ),
            },
          ]}
        />
      ) : (
        <p>You have no access tokens.</p>
      )}
      {props.workspaces.length ? (
        <details open={Boolean(form.error)}>
          <summary>New access token</summary>
          <form method="post" action="/account/tokens" class="stack card" novalidate>
            {csrfField(c)}
            <Field
              id="token-name"
              name="name"
              label="Token name"
              value={form.name ?? ''}
              maxLength={TOKEN_NAME_MAX_LENGTH}
              error={fieldError('name')}
              hint="What will use it, such as “nightly report job”."
            />
            <SelectField
              id="token-workspace"
              name="workspace"
              label="Workspace"
              value={form.workspace ?? null}
              options={props.workspaces.map((w) => ({ value: w.id, label: w.name }))}
              error={fieldError('workspace')}
              required
            />
            <Field
              id="token-days"
              name="days"
              label="Expires after (days)"
              type="number"
              inputMode="numeric"
              min={1}
              max={Math.max(...props.workspaces.map((w) => w.maxDays))}
              value={form.days ?? String(DEFAULT_TOKEN_DAYS)}
              error={fieldError('days')}
              hint={`Each workspace sets the longest: ${props.workspaces.map((w) => `${w.name} ${w.maxDays} days`).join(', ')}.`}
            />
            <fieldset class="card" aria-describedby={fieldError('scope') ? 'token-scope-error' : undefined}>
              <legend>It will be able to</legend>
              {fieldError('scope') ? (
                <p id="token-scope-error" class="error field-error">
                  {fieldError('scope')}
                </p>
              ) : null}
              {SCOPES.map((scope) => (
                <label class="check">
                  <input type="checkbox" name="scope" value={scope} checked={form.scopes?.includes(scope)} />{' '}
                  {SCOPE_DESCRIPTIONS[scope]} <code class="muted">{scope}</code>
                </label>
              ))}
            </fieldset>
            <ToolsetChoice idPrefix="token" checked={null} readOnly={false} error={fieldError('toolsets')} />
            <div class="actions">
              <button type="submit">Create access token</button>
            </div>
          </form>
        </details>
      ) : (
        <p class="muted">
          To make a token, a workspace of yours needs linked API credentials, and its team must allow access
          tokens.
        </p>
      )}
    </section>
  );
}

/** The new token, shown this once, with how to use it. */
export function TokenCreatedPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  token: string;
  name: string;
  workspaceName: string;
  expiresAt: number;
  mcpUrl: string;
}) {
  const s = tokenSnippets(props.mcpUrl, props.token);
  return (
    <Layout
      title="Access token created"
      signedInAs={props.user.email}
      csrfToken={props.c.get('csrfToken')}
      copyButtons
      localTimes
    >
      <h1>Access token created</h1>
      <p class="notice warn" role="status">
        Copy it now: this is the only time it is shown. Keep it like a password; anyone holding it can act as
        you in <span class="token">{props.workspaceName}</span> until <Time ms={props.expiresAt} />.
      </p>
      <section class="card" aria-labelledby="new-token-heading">
        <h2 id="new-token-heading" class="token">
          {props.name}
        </h2>
        <CopyLine id="new-token" value={props.token} what="the access token" />
      </section>
      <h2>Use it</h2>
      <p>
        Send it as <code>Authorization: Bearer …</code> to <code>{props.mcpUrl}</code>. The commands read it
        from <code>$SOCIAL_INTEL_TOKEN</code>, so it stays out of your shell history.
      </p>
      <h3>Claude Code</h3>
      <CopyBlock id="token-claude" text={s.claudeCode} what="the Claude Code command" />
      <h3>A JSON configuration (Cursor; VS Code takes the same headers)</h3>
      <CopyBlock id="token-json" text={s.json} what="the JSON configuration" />
      <h3>curl</h3>
      <CopyBlock id="token-curl" text={s.curlList} what="the curl command" />
      <p>
        <a href="/account#tokens-heading">Back to your account</a>
      </p>
    </Layout>
  );
}
