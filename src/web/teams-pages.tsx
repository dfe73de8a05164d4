import type { Context } from 'hono';
import type { WorkspaceRole, WorkspaceSummary } from '../accounts/workspaces.js';
import { AUDIT_KINDS, type AuditFilterErrors, type AuditFilters, type AuditRow } from '../audit/query.js';
import type { ToolUsageRow } from '../audit/tool-usage.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../oauth/scopes.js';
import type { ConnectedApp } from '../teams/apps.js';
import { ceilingWords, describeAuditEvent } from '../teams/audit-words.js';
import type { InviteErrors, InviteView } from '../teams/invites.js';
import type { MemberPolicyErrors } from '../teams/member-policy.js';
import type { TeamSettings } from '../teams/team-settings.js';
import type { MemberView } from '../teams/teams.js';
import { mayManage, TEAM_NAME_MAX_LENGTH } from '../teams/teams.js';
import type { UpstreamUsage } from '../teams/usage.js';
import { formatTime } from './account-pages.js';
import { csrfField } from './csrf.js';
import { Field, FormError, Notice } from './form.js';
import { Layout } from './layout.js';
import { ReadOnlyPreset, TeamRules, WebhookSwitch } from './team-rules.js';

export const ROLE_NAMES: Record<WorkspaceRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

function Time({ ms }: { ms: number | null }) {
  if (ms === null) return <span class="muted">never</span>;
  return <time datetime={new Date(ms).toISOString()}>{formatTime(ms)}</time>;
}

function Frame(props: { c: Context<AppEnv>; user: SessionUser; title: string; children?: unknown }) {
  return (
    <Layout title={props.title} signedInAs={props.user.email} csrfToken={props.c.get('csrfToken')}>
      {props.children as never}
    </Layout>
  );
}

export interface TeamNav {
  id: string;
  name: string;
  kind: 'personal' | 'team';
  role: WorkspaceRole;
}

/** Links between a workspace's pages; admin pages only for admins. */
function WorkspaceNav({ ws }: { ws: TeamNav }) {
  const base = `/workspaces/${encodeURIComponent(ws.id)}`;
  const admin = ws.role !== 'member';
  return (
    <nav aria-label="Workspace" class="actions">
      <a href={base}>{ws.kind === 'team' ? 'Team' : 'Workspace'}</a>
      <a href={`/account/credentials?workspace=${encodeURIComponent(ws.id)}`}>API credentials</a>
      {admin ? <a href={`${base}/apps`}>Connected apps</a> : null}
      {admin ? <a href={`${base}/audit`}>Audit trail</a> : null}
      {admin ? <a href={`${base}/usage`}>Usage</a> : null}
    </nav>
  );
}

// ---- New team ----------------------------------------------------------------------------------

export function NewTeamPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  name?: string;
  error?: string | undefined;
}) {
  return (
    <Frame c={props.c} user={props.user} title="Create a team">
      <h1>Create a team</h1>
      <p class="lead">
        A team shares one set of API credentials. Each member connects their own AI clients and acts as their
        own user, so usage is attributed per member.
      </p>
      <form method="post" action="/workspaces" class="stack" novalidate>
        {csrfField(props.c)}
        <Field
          id="name"
          name="name"
          label="Team name"
          value={props.name ?? ''}
          maxLength={TEAM_NAME_MAX_LENGTH}
          error={props.error}
          autofocus
        />
        <div class="actions">
          <button type="submit">Create team</button>
        </div>
      </form>
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Frame>
  );
}

// ---- Team page ---------------------------------------------------------------------------------

export interface TeamPageErrors {
  form?: string;
  name?: string;
  confirm?: string;
  invite?: InviteErrors;
}

export function TeamPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  members: MemberView[];
  invites: InviteView[];
  hasCredential: boolean;
  settings: TeamSettings;
  publicUrl: string;
  notice?: string | null;
  /** Shown once, right after creating an invite. */
  newInvite?: { url: string; role: string; expiresAt: number; maxUses: number | null } | null;
  errors?: TeamPageErrors;
  values?: { name?: string; inviteRole?: string; inviteMaxUses?: string; inviteDays?: string };
}) {
  const { c, user, ws, errors = {}, values = {} } = props;
  const base = `/workspaces/${encodeURIComponent(ws.id)}`;
  const admin = ws.role !== 'member';
  const team = ws.kind === 'team';
  const inviteErrors = errors.invite ?? {};
  return (
    <Frame c={c} user={user} title={ws.name}>
      <h1>{ws.name}</h1>
      <p class="muted">
        {team ? 'Team workspace' : 'Personal workspace'} · your role: {ROLE_NAMES[ws.role]}
      </p>
      <WorkspaceNav ws={ws} />
      <Notice message={props.notice} />
      <FormError id="form-error" message={errors.form} />
      {props.hasCredential ? null : (
        <p class="notice warn">
          No API credentials are linked yet: tool calls in this workspace fail until{' '}
          {admin ? 'you link them' : 'an admin links them'} on the{' '}
          <a href={`/account/credentials?workspace=${encodeURIComponent(ws.id)}`}>API credentials page</a>.
        </p>
      )}

      {props.newInvite ? (
        <section class="card" aria-labelledby="new-invite-heading">
          <h2 id="new-invite-heading">Invite link created</h2>
          <p>
            Copy this link now and send it to the person you are inviting: it is shown only once. It joins
            them as {props.newInvite.role},{' '}
            {props.newInvite.maxUses === null
              ? 'for any number of people'
              : props.newInvite.maxUses === 1
                ? 'once'
                : `up to ${props.newInvite.maxUses} times`}
            , until <Time ms={props.newInvite.expiresAt} />.
          </p>
          <label for="invite-link">Invite link</label>
          <input id="invite-link" type="text" readonly value={props.newInvite.url} />
        </section>
      ) : null}

      {team ? (
        <section aria-labelledby="members-heading">
          <h2 id="members-heading">Members</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">User ID</th>
                  <th scope="col">Limits</th>
                  {admin ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {props.members.map((m) => {
                  const mine = m.userId === user.id;
                  const manageable = !mine && mayManage(ws.role, m.role);
                  const roleId = `role-${m.userId}`;
                  return (
                    <tr>
                      <td>
                        {m.email}
                        {mine ? <span class="muted"> (you)</span> : null}
                      </td>
                      <td>
                        {manageable ? (
                          <form
                            method="post"
                            action={`${base}/members/${encodeURIComponent(m.userId)}/role`}
                            class="actions"
                          >
                            {csrfField(c)}
                            <label for={roleId} class="visually-hidden">{`Role for ${m.email}`}</label>
                            <select id={roleId} name="role">
                              {(ws.role === 'owner'
                                ? (['owner', 'admin', 'member'] as const)
                                : (['admin', 'member'] as const)
                              ).map((r) => (
                                <option value={r} selected={m.role === r}>
                                  {ROLE_NAMES[r]}
                                </option>
                              ))}
                            </select>
                            <button type="submit" class="secondary" aria-label={`Change role of ${m.email}`}>
                              Change role
                            </button>
                          </form>
                        ) : (
                          ROLE_NAMES[m.role]
                        )}
                      </td>
                      <td>
                        <code>{m.upstreamUserId}</code>
                        {m.upstreamUserIdSet ? null : <span class="muted"> (default)</span>}
                      </td>
                      <td>
                        {capitalised(ceilingWords(m.maxScopes === null ? null : m.maxScopes.join(' ')))}
                        <br />
                        {m.monthlyWriteCap === null
                          ? 'No monthly cap'
                          : `Cap: ${m.monthlyWriteCap} credit-spending calls a month`}
                        <br />
                        {m.canChangeWebhook ? 'Can change team webhook' : 'Cannot change team webhook'}
                      </td>
                      {admin ? (
                        <td>
                          {manageable || (admin && mine) ? (
                            <a
                              href={`${base}/members/${encodeURIComponent(m.userId)}`}
                              aria-label={`Settings for ${m.email}`}
                            >
                              Settings
                            </a>
                          ) : null}
                          {manageable ? (
                            <form
                              method="post"
                              action={`${base}/members/${encodeURIComponent(m.userId)}/remove`}
                              class="actions"
                            >
                              {csrfField(c)}
                              <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                                Remove
                              </button>
                            </form>
                          ) : null}
                        </td>
                      ) : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}

      {team ? <TeamRules c={c} base={base} admin={admin} settings={props.settings} /> : null}

      {team && admin ? (
        <section aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite people</h2>
          <p class="muted">
            An invite link lets its holder join after signing in or creating an account. No email is sent:
            copy the link and share it yourself.
          </p>
          <form method="post" action={`${base}/invites`} class="stack" novalidate>
            {csrfField(c)}
            <div class="field">
              <label for="invite-role">Invite role</label>
              {inviteErrors.role ? (
                <p id="invite-role-error" class="error field-error">
                  {inviteErrors.role}
                </p>
              ) : null}
              <select
                id="invite-role"
                name="role"
                aria-invalid={inviteErrors.role ? 'true' : undefined}
                aria-describedby={inviteErrors.role ? 'invite-role-error' : undefined}
              >
                <option value="member" selected={(values.inviteRole ?? 'member') === 'member'}>
                  Member
                </option>
                <option value="admin" selected={values.inviteRole === 'admin'}>
                  Admin
                </option>
              </select>
            </div>
            <Field
              required={false}
              id="invite-uses"
              name="max_uses"
              label="Uses"
              value={values.inviteMaxUses ?? '1'}
              inputMode="numeric"
              error={inviteErrors.maxUses}
              hint="1 for a single person; empty for any number of people until it expires."
            />
            <Field
              required={false}
              id="invite-days"
              name="expires_in_days"
              label="Expires after (days)"
              value={values.inviteDays ?? '7'}
              inputMode="numeric"
              error={inviteErrors.expiresInDays}
            />
            <div class="actions">
              <button type="submit">Create invite link</button>
            </div>
          </form>
          {props.invites.length ? (
            <div class="table-wrap">
              <table>
                <caption class="muted">Invite links</caption>
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Role</th>
                    <th scope="col">Used</th>
                    <th scope="col">Expires</th>
                    <th scope="col">State</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {props.invites.map((i) => (
                    <tr>
                      <td>
                        <Time ms={i.createdAt} />
                        {i.createdByEmail ? <span class="muted"> by {i.createdByEmail}</span> : null}
                      </td>
                      <td>{ROLE_NAMES[i.role]}</td>
                      <td>
                        {i.uses} of {i.maxUses ?? 'unlimited'}
                      </td>
                      <td>
                        <Time ms={i.expiresAt} />
                      </td>
                      <td>
                        {
                          { usable: 'Open', expired: 'Expired', used_up: 'Used up', revoked: 'Withdrawn' }[
                            i.state
                          ]
                        }
                      </td>
                      <td>
                        {i.state === 'usable' ? (
                          <form method="post" action={`${base}/invites/${encodeURIComponent(i.id)}/revoke`}>
                            {csrfField(c)}
                            <button type="submit" class="secondary">
                              Withdraw
                            </button>
                          </form>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>
      ) : null}

      {team && admin ? (
        <section aria-labelledby="rename-heading">
          <h2 id="rename-heading">Rename</h2>
          <form method="post" action={`${base}/rename`} class="stack" novalidate>
            {csrfField(c)}
            <Field
              id="rename"
              name="name"
              label="Team name"
              value={values.name ?? ws.name}
              maxLength={TEAM_NAME_MAX_LENGTH}
              error={errors.name}
            />
            <div class="actions">
              <button type="submit" class="secondary">
                Rename team
              </button>
            </div>
          </form>
        </section>
      ) : null}

      {team ? (
        <section aria-labelledby="leave-heading">
          <h2 id="leave-heading">Leave</h2>
          <p class="muted">
            Leaving ends your access at once: the apps you connected in this team are disconnected.
          </p>
          <form method="post" action={`${base}/leave`} class="actions">
            {csrfField(c)}
            <button type="submit" class="secondary">
              Leave team
            </button>
          </form>
        </section>
      ) : null}

      {team && ws.role === 'owner' ? (
        <section aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete team</h2>
          <p class="muted">
            Deleting removes every member, invite, connected app and the linked credentials. The audit trail
            is kept. This cannot be undone.
          </p>
          <form method="post" action={`${base}/delete`} class="stack" novalidate>
            {csrfField(c)}
            <Field
              id="confirm"
              name="confirm"
              label="Type the team name to confirm"
              autocomplete="off"
              error={errors.confirm}
              hint={ws.name}
            />
            <div class="actions">
              <button type="submit" class="danger">
                Delete team
              </button>
            </div>
          </form>
        </section>
      ) : null}
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Frame>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---- Member settings ---------------------------------------------------------------------------

export function MemberSettingsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  member: MemberView;
  notice?: string | null;
  errors?: MemberPolicyErrors & { form?: string };
  values?: {
    upstreamUserId: string;
    maxScopes: readonly string[];
    monthlyWriteCap: string;
    canChangeWebhook?: boolean;
  };
}) {
  const { c, user, ws, member, errors = {} } = props;
  const base = `/workspaces/${encodeURIComponent(ws.id)}`;
  const values = props.values ?? {
    upstreamUserId: member.upstreamUserIdSet ? member.upstreamUserId : '',
    maxScopes: member.maxScopes ?? SCOPES,
    monthlyWriteCap: member.monthlyWriteCap === null ? '' : String(member.monthlyWriteCap),
    canChangeWebhook: member.canChangeWebhook,
  };
  const self = member.userId === user.id;
  const ticked = new Set(values.maxScopes);
  return (
    <Frame c={c} user={user} title={`Settings for ${member.email}`}>
      <h1>Settings for {member.email}</h1>
      <p class="muted">
        In {ws.name} · role: {ROLE_NAMES[member.role]}
      </p>
      <WorkspaceNav ws={ws} />
      <Notice message={props.notice} />
      {self && ws.role !== 'owner' ? (
        <p class="notice">
          These are your own settings: you can narrow your limits here, but only an owner of the team can lift
          them.
        </p>
      ) : null}
      <FormError id="form-error" message={errors.form} />
      <form
        method="post"
        action={`${base}/members/${encodeURIComponent(member.userId)}`}
        class="stack"
        novalidate
      >
        {csrfField(c)}
        <Field
          required={false}
          id="upstream_user_id"
          name="upstream_user_id"
          label="User ID"
          value={values.upstreamUserId}
          maxLength={128}
          error={errors.upstreamUserId}
          hint={`What the API sees as this member (X-SERVICE-USER-ID). Empty: the default ${member.upstreamUserIdSet ? 'derived from their account' : member.upstreamUserId}.`}
        />
        <fieldset aria-describedby={errors.maxScopes ? 'scopes-error' : 'scopes-hint'}>
          <legend>Permissions this member may grant</legend>
          {errors.maxScopes ? (
            <p id="scopes-error" class="error field-error">
              {errors.maxScopes}
            </p>
          ) : null}
          <p id="scopes-hint" class="hint muted">
            All ticked: no limit. Applies to their connected apps from their next tool call; the “Read-only”
            button below saves just the read permissions.
          </p>
          {SCOPES.map((s) => (
            <label class="check">
              <input type="checkbox" name="max_scopes" value={s} checked={ticked.has(s)} />{' '}
              {SCOPE_DESCRIPTIONS[s]}
            </label>
          ))}
        </fieldset>
        <WebhookSwitch checked={values.canChangeWebhook ?? member.canChangeWebhook} role={member.role} />
        <Field
          required={false}
          id="monthly_write_cap"
          name="monthly_write_cap"
          label="Monthly cap on credit-spending calls"
          value={values.monthlyWriteCap}
          inputMode="numeric"
          error={errors.monthlyWriteCap}
          hint="Searches, agent runs, reruns and schedules started per calendar month (UTC). Empty: no cap."
        />
        <div class="actions">
          <button type="submit">Save member settings</button>
        </div>
        <ReadOnlyPreset />
      </form>
      <p>
        <a href={base}>Back to the team</a>
      </p>
    </Frame>
  );
}

// ---- Connected apps ----------------------------------------------------------------------------

function AppsTable(props: {
  c: Context<AppEnv>;
  apps: ConnectedApp[];
  action: string;
  showUser: boolean;
  showWorkspace: boolean;
}) {
  if (!props.apps.length) return <p class="muted">No connected apps.</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">App</th>
            {props.showUser ? <th scope="col">Member</th> : null}
            {props.showWorkspace ? <th scope="col">Workspace</th> : null}
            <th scope="col">Permissions</th>
            <th scope="col">Connected</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.apps.map((a) => (
            <tr>
              <td>{a.clientName}</td>
              {props.showUser ? <td>{a.userEmail}</td> : null}
              {props.showWorkspace ? <td>{a.workspaceName}</td> : null}
              <td>{a.scopes.join(', ')}</td>
              <td>
                <Time ms={a.createdAt} />
              </td>
              <td>
                <Time ms={a.lastUsedAt} />
              </td>
              <td>
                <form method="post" action={props.action}>
                  {csrfField(props.c)}
                  <input type="hidden" name="grant" value={a.grantId} />
                  <button type="submit" class="danger" aria-label={`Revoke ${a.clientName}`}>
                    Revoke
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function MyAppsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  apps: ConnectedApp[];
  adminOf: WorkspaceSummary[];
  notice?: string | null;
  error?: string | null;
}) {
  return (
    <Frame c={props.c} user={props.user} title="Connected apps">
      <h1>Connected apps</h1>
      <p class="lead">
        AI clients you allowed to use the tools in your name. Revoking one ends its access at once; it can ask
        you again later.
      </p>
      <Notice message={props.notice} />
      <FormError id="form-error" message={props.error ?? undefined} />
      <AppsTable c={props.c} apps={props.apps} action="/account/apps/revoke" showUser={false} showWorkspace />
      {props.adminOf.length ? (
        <>
          <h2>Workspaces you administer</h2>
          <ul>
            {props.adminOf.map((w) => (
              <li>
                <a
                  href={`/workspaces/${encodeURIComponent(w.id)}/apps`}
                >{`Every connected app in ${w.name}`}</a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Frame>
  );
}

export function WorkspaceAppsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  apps: ConnectedApp[];
  notice?: string | null;
  error?: string | null;
}) {
  return (
    <Frame c={props.c} user={props.user} title={`Connected apps in ${props.ws.name}`}>
      <h1>Connected apps in {props.ws.name}</h1>
      <WorkspaceNav ws={props.ws} />
      <Notice message={props.notice} />
      <FormError id="form-error" message={props.error ?? undefined} />
      <AppsTable
        c={props.c}
        apps={props.apps}
        action={`/workspaces/${encodeURIComponent(props.ws.id)}/apps/revoke`}
        showUser
        showWorkspace={false}
      />
    </Frame>
  );
}

// ---- Audit -------------------------------------------------------------------------------------

function auditQuery(filters: AuditFilters, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  if (filters.kind) params.set('kind', filters.kind);
  if (filters.userId) params.set('member', filters.userId);
  if (filters.tool) params.set('tool', filters.tool);
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const q = params.toString();
  return q ? `?${q}` : '';
}

export function AuditPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  members: MemberView[];
  filters: AuditFilters;
  errors: AuditFilterErrors;
  rows: AuditRow[];
  hasMore: boolean;
  retentionDays: number;
}) {
  const { ws, filters, errors } = props;
  const base = `/workspaces/${encodeURIComponent(ws.id)}/audit`;
  const emails = new Map(props.members.map((m) => [m.userId, m.email]));
  const nameOf = (userId: string) => emails.get(userId) ?? 'a former member';
  return (
    <Frame c={props.c} user={props.user} title={`Audit trail of ${ws.name}`}>
      <h1>Audit trail of {ws.name}</h1>
      <WorkspaceNav ws={ws} />
      <p class="muted">
        Tool calls and security events, newest first. Kept {props.retentionDays} days. Never holds tool
        arguments or tokens.
      </p>
      <form method="get" action={base} class="stack" novalidate>
        <div class="field">
          <label for="kind">Kind</label>
          {errors.kind ? (
            <p id="kind-error" class="error field-error">
              {errors.kind}
            </p>
          ) : null}
          <select
            id="kind"
            name="kind"
            aria-invalid={errors.kind ? 'true' : undefined}
            aria-describedby={errors.kind ? 'kind-error' : undefined}
          >
            <option value="">Any</option>
            {AUDIT_KINDS.map((k) => (
              <option value={k} selected={filters.kind === k}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="member">Member</label>
          <select id="member" name="member">
            <option value="">Anyone</option>
            {props.members.map((m) => (
              <option value={m.userId} selected={filters.userId === m.userId}>
                {m.email}
              </option>
            ))}
          </select>
        </div>
        <Field
          required={false}
          id="tool"
          name="tool"
          label="Tool"
          value={filters.tool ?? ''}
          error={errors.tool}
          hint="e.g. submit_keyword_search"
        />
        <Field
          required={false}
          id="from"
          name="from"
          label="From"
          type="date"
          value={filters.from ?? ''}
          error={errors.from}
        />
        <Field
          required={false}
          id="to"
          name="to"
          label="To"
          type="date"
          value={filters.to ?? ''}
          error={errors.to}
        />
        <div class="actions">
          <button type="submit">Filter</button>
          <a href={base}>Clear filters</a>
        </div>
      </form>
      <p class="actions">
        <a href={`${base}${auditQuery(filters, { format: 'csv' })}`}>Download CSV</a>
        <a href={`${base}${auditQuery(filters, { format: 'json' })}`}>Download JSON</a>
      </p>
      {props.rows.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Member</th>
                <th scope="col">App</th>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">What happened</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((r) => (
                <tr>
                  <td>
                    <Time ms={r.at} />
                  </td>
                  <td>{r.kind}</td>
                  <td>{r.userEmail ?? r.userId ?? ''}</td>
                  <td>{r.clientName ?? r.clientId ?? ''}</td>
                  <td>{r.tool ?? ''}</td>
                  <td>
                    {r.status ?? ''}
                    {r.durationMs !== null ? <span class="muted"> · {r.durationMs} ms</span> : null}
                  </td>
                  <td>{describeAuditEvent(r, nameOf) ?? ''}</td>
                  <td>
                    <code>{r.detail ?? ''}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No events match these filters.</p>
      )}
      <nav aria-label="Pages" class="actions">
        {filters.page > 1 ? (
          <a href={`${base}${auditQuery(filters, { page: String(filters.page - 1) })}`}>Newer events</a>
        ) : null}
        <span class="muted">Page {filters.page}</span>
        {props.hasMore ? (
          <a href={`${base}${auditQuery(filters, { page: String(filters.page + 1) })}`}>Older events</a>
        ) : null}
      </nav>
    </Frame>
  );
}

// ---- Usage -------------------------------------------------------------------------------------

export function UsagePage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  ws: TeamNav;
  days: number;
  daysOptions: readonly number[];
  totals: Array<{ userEmail: string | null; tool: string; calls: number; failed: number }>;
  byDay: ToolUsageRow[];
  upstream: UpstreamUsage;
  memberByUpstreamId: Map<string, string>;
}) {
  const { ws } = props;
  const record = props.upstream.ok ? props.upstream.record : null;
  const byUser = Array.isArray(record?.usage_by_user)
    ? (record.usage_by_user as Array<Record<string, unknown>>)
    : [];
  return (
    <Frame c={props.c} user={props.user} title={`Usage of ${ws.name}`}>
      <h1>Usage of {ws.name}</h1>
      <WorkspaceNav ws={ws} />
      <form
        method="get"
        action={`/workspaces/${encodeURIComponent(ws.id)}/usage`}
        class="actions workspace-picker"
      >
        <label for="days">Period</label>
        <select id="days" name="days">
          {props.daysOptions.map((d) => (
            <option value={String(d)} selected={d === props.days}>
              {`Last ${d} days`}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>

      <h2>Tool calls per member and tool</h2>
      {props.totals.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Tool</th>
                <th scope="col">Calls</th>
                <th scope="col">Not ok</th>
              </tr>
            </thead>
            <tbody>
              {props.totals.map((t) => (
                <tr>
                  <td>{t.userEmail ?? 'former member'}</td>
                  <td>{t.tool}</td>
                  <td>{t.calls}</td>
                  <td>{t.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No tool calls in this period.</p>
      )}

      <h2>Day by day</h2>
      {props.byDay.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Member</th>
                <th scope="col">Tool</th>
                <th scope="col">Calls</th>
              </tr>
            </thead>
            <tbody>
              {props.byDay.map((r) => (
                <tr>
                  <td>{r.day}</td>
                  <td>{r.userEmail ?? 'former member'}</td>
                  <td>{r.tool}</td>
                  <td>{r.calls}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">Nothing to show.</p>
      )}

      <h2>Upstream usage (last 12 months)</h2>
      {props.upstream.ok ? (
        <>
          <dl class="facts">
            <dt>Searches</dt>
            <dd>{String(record?.searches_count ?? 0)}</dd>
            <dt>IQ searches</dt>
            <dd>{String(record?.total_iq_searches_count ?? 0)}</dd>
          </dl>
          {byUser.length ? (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">User ID</th>
                    <th scope="col">Member</th>
                    <th scope="col">Searches</th>
                    <th scope="col">Last search</th>
                  </tr>
                </thead>
                <tbody>
                  {byUser.map((u) => (
                    <tr>
                      <td>
                        <code>{String(u.user ?? '')}</code>
                      </td>
                      <td>{props.memberByUpstreamId.get(String(u.user ?? '')) ?? ''}</td>
                      <td>{String(u.searches_count ?? 0)}</td>
                      <td>{String(u.last_search ?? '')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : (
        <p class="error" role="status">
          {props.upstream.message}
        </p>
      )}
    </Frame>
  );
}

// ---- Invite acceptance -------------------------------------------------------------------------

export function InvitePage(props: {
  c: Context<AppEnv>;
  user: SessionUser | null;
  token: string;
  invite: { workspaceId: string; workspaceName: string; role: 'admin' | 'member' } | null;
  problem?: string | null;
  alreadyMember?: boolean;
}) {
  const { c, user, invite } = props;
  const here = `/invite?${new URLSearchParams({ token: props.token }).toString()}`;
  const body = (() => {
    if (props.problem || !invite) {
      return (
        <p role="alert" class="notice warn">
          {props.problem ?? 'This invitation link is not valid.'}
        </p>
      );
    }
    if (props.alreadyMember) {
      return (
        <>
          <p class="notice ok" role="status">
            You are a member of {invite.workspaceName}.
          </p>
          <p>
            <a href={`/workspaces/${encodeURIComponent(invite.workspaceId)}`}>Go to {invite.workspaceName}</a>
          </p>
        </>
      );
    }
    if (!user) {
      return (
        <>
          <p>
            You are invited to join <strong>{invite.workspaceName}</strong> as{' '}
            {invite.role === 'admin' ? 'an admin' : 'a member'}. Sign in or create an account to accept.
          </p>
          <p class="actions">
            <a href={`/sign-in?${new URLSearchParams({ next: here }).toString()}`}>Sign in to accept</a>
            <a href={`/sign-up?${new URLSearchParams({ invite: props.token, next: here }).toString()}`}>
              Create an account to accept
            </a>
          </p>
        </>
      );
    }
    return (
      <>
        <p>
          You are invited to join <strong>{invite.workspaceName}</strong> as{' '}
          {invite.role === 'admin' ? 'an admin' : 'a member'}. Your AI clients can then act in this team with
          its API credentials, as you.
        </p>
        <form method="post" action="/invite" class="actions">
          {csrfField(c)}
          <input type="hidden" name="token" value={props.token} />
          <input type="hidden" name="workspace" value={invite.workspaceId} />
          <button type="submit">Accept invitation</button>
        </form>
      </>
    );
  })();
  return (
    <Layout title="Invitation" signedInAs={user?.email ?? null} csrfToken={c.get('csrfToken')}>
      <h1>Invitation</h1>
      {body}
    </Layout>
  );
}
