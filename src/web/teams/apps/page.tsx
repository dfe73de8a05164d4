import type { Context } from 'hono';
import type { WorkspaceSummary } from '../../../accounts/workspaces.js';
import type { AppEnv, SessionUser } from '../../../http/env.js';
import type { AccessTokenView } from '../../../teams/access-token-list.js';
import type { AppWithPermissions } from '../../../teams/app-permissions.js';
import { csrfField } from '../../csrf.js';
import { FormError, Notice } from '../../kit/fields.js';
import { PermissionList } from '../../kit/permissions.js';
import { CardTable, type Column } from '../../kit/table.js';
import { Time } from '../../kit/time.js';
import { Frame, TeamHeader, type TeamNav, teamPath } from '../frame.js';
import { WorkspaceTokens } from './tokens.js';

/**
 * Connected apps, one row each: the app, whose it is or where, what it can do now in words (granted and
 * allowed by the member's team settings; what the settings block is listed apart), when it connected
 * and was last used, and Revoke.
 */
function AppsTable(props: {
  c: Context<AppEnv>;
  apps: AppWithPermissions[];
  action: string;
  showUser: boolean;
  showWorkspace: boolean;
}) {
  const whose = props.showUser ? ('the member’s' as const) : ('yours' as const);
  if (!props.apps.length) return <p class="muted">No connected apps.</p>;
  const columns: Column<AppWithPermissions>[] = [
    { label: 'App', cell: (a) => <span class="token">{a.clientName}</span> },
    ...(props.showUser
      ? [{ label: 'Member', cell: (a: AppWithPermissions) => <span class="token">{a.userEmail}</span> }]
      : []),
    ...(props.showWorkspace
      ? [
          {
            label: 'Workspace',
            cell: (a: AppWithPermissions) => <span class="token">{a.workspaceName}</span>,
          },
        ]
      : []),
    {
      label: 'What it can do',
      cell: (a) => <PermissionList allowed={a.effective} blocked={a.blocked} whose={whose} />,
    },
    { label: 'Connected', cell: (a) => <Time ms={a.createdAt} /> },
    { label: 'Last used', cell: (a) => <Time ms={a.lastUsedAt} /> },
    {
      label: '',
      cell: (a) => (
        <form method="post" action={props.action}>
          {csrfField(props.c)}
          <input type="hidden" name="grant" value={a.grantId} />
          <button type="submit" class="danger small" aria-label={`Revoke ${a.clientName}`}>
            Revoke
          </button>
        </form>
      ),
    },
  ];
  return <CardTable caption="Connected apps" columns={columns} rows={props.apps} title={0} />;
}

export function MyAppsPage(props: {
  c: Context<AppEnv>;
  user: SessionUser;
  apps: AppWithPermissions[];
  adminOf: WorkspaceSummary[];
  notice?: string | null;
  error?: string | null;
}) {
  return (
    <Frame c={props.c} user={props.user} title="Connected apps" localTimes>
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
                <a href={teamPath(w, '/apps')}>{`Every connected app in ${w.name}`}</a>
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
  apps: AppWithPermissions[];
  tokens: AccessTokenView[];
  notice?: string | null;
  error?: string | null;
}) {
  const { ws } = props;
  return (
    <Frame c={props.c} user={props.user} title={`Connected apps in ${ws.name}`} localTimes>
      <TeamHeader ws={ws} current="apps" title={`Connected apps in ${ws.name}`} />
      <p class="muted">
        Every AI client a member of {ws.name} allowed, with what it can do now: what the member allowed,
        within the permissions their settings leave them.
      </p>
      <Notice message={props.notice} />
      <FormError id="form-error" message={props.error ?? undefined} />
      <AppsTable
        c={props.c}
        apps={props.apps}
        action={teamPath(ws, '/apps/revoke')}
        showUser
        showWorkspace={false}
      />
      <WorkspaceTokens c={props.c} tokens={props.tokens} action={teamPath(ws, '/tokens/revoke')} />
    </Frame>
  );
}
