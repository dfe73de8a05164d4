import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { getCredentialSummary } from '../accounts/credentials.js';
import { getMembership, listWorkspacesForUser, type WorkspaceRole } from '../accounts/workspaces.js';
import { auditCsv, auditJson, exportAudit, parseAuditFilters, queryAudit } from '../audit/query.js';
import { toolCallsByDay } from '../audit/tool-usage.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import type { SecretBox } from '../security/secrets.js';
import { listAppsForUser, listAppsForWorkspace, revokeOwnApp, revokeWorkspaceApp } from '../teams/apps.js';
import {
  acceptInvite,
  createInvite,
  INVITE_PROBLEMS,
  listInvites,
  lookupInvite,
  revokeInvite,
} from '../teams/invites.js';
import { setMemberPolicy } from '../teams/member-policy.js';
import type { Refusal } from '../teams/outcome.js';
import { getTeamSettings, setTeamSettings } from '../teams/team-settings.js';
import {
  changeRole,
  createTeam,
  deleteTeam,
  isAdminRole,
  leaveTeam,
  listMembers,
  mayManage,
  removeMember,
  renameTeam,
} from '../teams/teams.js';
import { fetchUpstreamUsage, totalsByMemberAndTool, USAGE_DAYS } from '../teams/usage.js';
import { MessagePage } from './auth-pages.js';
import { originCheck, verifyCsrf } from './csrf.js';
import { privatePage } from './layout.js';
import { requireUser } from './session.js';
import {
  AuditPage,
  InvitePage,
  MemberSettingsPage,
  MyAppsPage,
  NewTeamPage,
  type TeamNav,
  TeamPage,
  type TeamPageErrors,
  UsagePage,
  WorkspaceAppsPage,
} from './teams-pages.js';

export interface TeamRoutesDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  upstream: { searchUrl: string; agentUrl: string };
}

const ID_MAX_LENGTH = 64;
const INVITE_TOKEN_MAX_LENGTH = 200;

type Form = Record<string, string | string[]>;

/** The form's string fields (repeated names become arrays); unreadable bodies give nothing. */
async function readForm(c: Context<AppEnv>): Promise<Form> {
  try {
    const body = await c.req.parseBody({ all: true });
    const form: Form = {};
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string') form[key] = value;
      else if (Array.isArray(value)) form[key] = value.filter((v): v is string => typeof v === 'string');
    }
    return form;
  } catch {
    return {};
  }
}

function one(form: Form, key: string, max = 1000): string {
  const v = form[key];
  return (typeof v === 'string' ? v : (v?.[0] ?? '')).slice(0, max);
}

function many(form: Form, key: string): string[] {
  const v = form[key];
  return (typeof v === 'string' ? [v] : (v ?? [])).slice(0, 20).map((s) => s.slice(0, 64));
}

/**
 * Team workspaces, invites, member policy, connected apps, audit trail and usage pages (issue 7).
 * Every state change: origin check, CSRF token, then the domain function, which checks the actor's
 * role inside its own transaction.
 */
export function teamRoutes(deps: TeamRoutesDeps) {
  const { config, db, secrets } = deps;
  const app = new Hono<AppEnv>();

  const page = privatePage;

  const message = (
    c: Context<AppEnv>,
    user: SessionUser | null,
    title: string,
    text: string,
    status: ContentfulStatusCode,
    link = { href: '/account', text: 'Back to your account' },
  ) =>
    page(
      c,
      <MessagePage
        title={title}
        message={text}
        signedInAs={user?.email ?? null}
        csrfToken={c.get('csrfToken')}
        link={link}
      />,
      status,
    );

  const refused = (c: Context<AppEnv>) =>
    message(
      c,
      c.get('user'),
      'Request refused',
      'This form was not sent from this site, so it was not accepted. If you sent it, go back, reload the page and try again.',
      403,
    );
  const sameOrigin = originCheck(config, refused);

  const notFound = (c: Context<AppEnv>, user: SessionUser) =>
    message(
      c,
      user,
      'Workspace not found',
      'There is no such workspace, or you are not a member of it.',
      404,
    );

  const adminsOnly = (c: Context<AppEnv>, user: SessionUser, ws: TeamNav) =>
    message(c, user, 'Admins only', "Only the workspace's owners and admins can see this page.", 403, {
      href: `/workspaces/${encodeURIComponent(ws.id)}`,
      text: `Back to ${ws.name}`,
    });

  /** The workspace of the path, if the signed-in user is a member of it. */
  const workspaceOf = (c: Context<AppEnv>, user: SessionUser): TeamNav | null => {
    const id = (c.req.param('id') ?? '').slice(0, ID_MAX_LENGTH);
    const m = getMembership(db, id, user.id);
    return m ? { id: m.workspaceId, name: m.name, kind: m.kind, role: m.role } : null;
  };

  /** Signed-in user and their workspace (and, for admin pages, their role), or the response to send. */
  type Halt = { done: Response | Promise<Response> };
  const gate = (
    c: Context<AppEnv>,
    needs: WorkspaceRole = 'member',
  ): Halt | { user: SessionUser; ws: TeamNav } => {
    const user = requireUser(c);
    if (user instanceof Response) return { done: user };
    const ws = workspaceOf(c, user);
    if (!ws) return { done: notFound(c, user) };
    if (needs !== 'member' && !isAdminRole(ws.role)) return { done: adminsOnly(c, user, ws) };
    return { user, ws };
  };

  /** Signed-in user and a form with a valid CSRF token, or the response to send. */
  const postGate = async (c: Context<AppEnv>): Promise<Halt | { user: SessionUser; form: Form }> => {
    const user = requireUser(c);
    if (user instanceof Response) return { done: user };
    const form = await readForm(c);
    if (!verifyCsrf(c, form)) return { done: refused(c) };
    return { user, form };
  };

  // ---- Team page ---------------------------------------------------------------------------------

  const TEAM_NOTICES: Record<string, string> = {
    created: 'Team created. Next, link its API credentials, then invite people.',
    renamed: 'Team renamed.',
    role: 'Role changed.',
    removed: 'Member removed. Their connected apps in this team were disconnected.',
    withdrawn: 'Invite link withdrawn.',
    joined: 'Welcome to the team.',
    policy: 'Member settings saved. They apply from the member’s next tool call.',
    settings: 'Team settings saved. They apply from every member’s next tool call.',
  };

  const renderTeam = (
    c: Context<AppEnv>,
    user: SessionUser,
    ws: TeamNav,
    options: {
      notice?: string | null;
      errors?: TeamPageErrors;
      values?: Parameters<typeof TeamPage>[0]['values'];
      newInvite?: Parameters<typeof TeamPage>[0]['newInvite'];
    } = {},
    status: ContentfulStatusCode = 200,
  ) =>
    page(
      c,
      <TeamPage
        c={c}
        user={user}
        ws={ws}
        members={ws.kind === 'team' ? listMembers(db, ws.id) : []}
        invites={isAdminRole(ws.role) && ws.kind === 'team' ? listInvites(db, ws.id) : []}
        hasCredential={getCredentialSummary(db, ws.id) !== null}
        settings={getTeamSettings(db, ws.id)}
        publicUrl={config.publicUrl}
        notice={options.notice ?? null}
        newInvite={options.newInvite ?? null}
        errors={options.errors ?? {}}
        values={options.values ?? {}}
      />,
      status,
    );

  /** A refused team action shown on the team page (or a plain page when the team is gone for them). */
  const teamRefusal = (
    c: Context<AppEnv>,
    user: SessionUser,
    refusal: Refusal,
    errors: TeamPageErrors = {},
    values: Parameters<typeof TeamPage>[0]['values'] = {},
  ) => {
    const ws = workspaceOf(c, user);
    if (!ws)
      return refusal.status === 404
        ? notFound(c, user)
        : message(c, user, 'Refused', refusal.message, refusal.status);
    const fieldError = refusal.field ? { [refusal.field]: refusal.message } : {};
    return renderTeam(
      c,
      user,
      ws,
      { errors: { form: refusal.message, ...errors, ...fieldError }, values },
      refusal.status,
    );
  };

  const back = (c: Context<AppEnv>, workspaceId: string, done: string) =>
    c.redirect(`/workspaces/${encodeURIComponent(workspaceId)}?done=${done}`, 303);

  app.get('/workspaces/new', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    return page(c, <NewTeamPage c={c} user={user} />);
  });

  app.post('/workspaces', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const name = one(g.form, 'name', 400);
    const outcome = createTeam(db, g.user.id, name);
    if (!outcome.ok)
      return page(c, <NewTeamPage c={c} user={g.user} name={name} error={outcome.message} />, outcome.status);
    c.get('log').info({ userId: g.user.id, workspaceId: outcome.value }, 'team created');
    return back(c, outcome.value, 'created');
  });

  app.get('/workspaces/:id', (c) => {
    const g = gate(c);
    if ('done' in g) return g.done;
    const done = c.req.query('done');
    return renderTeam(c, g.user, g.ws, { notice: done ? (TEAM_NOTICES[done] ?? null) : null });
  });

  app.post('/workspaces/:id/rename', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const name = one(g.form, 'name', 400);
    const outcome = renameTeam(db, c.req.param('id'), g.user.id, name);
    if (!outcome.ok) return teamRefusal(c, g.user, outcome, {}, { name });
    return back(c, c.req.param('id'), 'renamed');
  });

  app.post('/workspaces/:id/delete', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = deleteTeam(db, c.req.param('id'), g.user.id, one(g.form, 'confirm', 400));
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    c.get('log').info({ userId: g.user.id, workspaceId: c.req.param('id') }, 'team deleted');
    return c.redirect('/account?done=team_deleted', 303);
  });

  app.post('/workspaces/:id/leave', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = leaveTeam(db, c.req.param('id'), g.user.id);
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    return c.redirect('/account?done=left_team', 303);
  });

  app.post('/workspaces/:id/settings', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = setTeamSettings(db, c.req.param('id'), g.user.id, {
      membersReadTeamWork: one(g.form, 'members_read_team_work', 10) === 'on',
    });
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    return back(c, c.req.param('id'), 'settings');
  });

  // ---- Invites ---------------------------------------------------------------------------------

  app.post('/workspaces/:id/invites', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const input = {
      role: one(g.form, 'role', 20),
      maxUses: one(g.form, 'max_uses', 20),
      expiresInDays: one(g.form, 'expires_in_days', 20),
    };
    const values = { inviteRole: input.role, inviteMaxUses: input.maxUses, inviteDays: input.expiresInDays };
    const outcome = createInvite(db, c.req.param('id'), g.user.id, input);
    if (!outcome.ok) {
      return teamRefusal(c, g.user, outcome, 'errors' in outcome ? { invite: outcome.errors } : {}, values);
    }
    const ws = workspaceOf(c, g.user);
    if (!ws) return notFound(c, g.user);
    const url = `${config.publicUrl}/invite?${new URLSearchParams({ token: outcome.value.token }).toString()}`;
    return renderTeam(
      c,
      g.user,
      ws,
      {
        newInvite: {
          url,
          role: input.role,
          expiresAt: outcome.value.expiresAt,
          maxUses: input.maxUses.trim() ? Number(input.maxUses) : null,
        },
      },
      201,
    );
  });

  app.post('/workspaces/:id/invites/:inviteId/revoke', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = revokeInvite(
      db,
      c.req.param('id'),
      g.user.id,
      c.req.param('inviteId').slice(0, ID_MAX_LENGTH),
    );
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    return back(c, c.req.param('id'), 'withdrawn');
  });

  const inviteToken = (raw: string | undefined) => (raw ?? '').trim().slice(0, INVITE_TOKEN_MAX_LENGTH + 1);

  app.get('/invite', (c) => {
    const user = c.get('user');
    const token = inviteToken(c.req.query('token'));
    const invite = token.length <= INVITE_TOKEN_MAX_LENGTH ? lookupInvite(db, token) : null;
    if (!invite)
      return page(
        c,
        <InvitePage c={c} user={user} token={token} invite={null} problem={INVITE_PROBLEMS.unknown} />,
        404,
      );
    const alreadyMember = user ? getMembership(db, invite.workspaceId, user.id) !== null : false;
    if (!alreadyMember && invite.state !== 'usable') {
      return page(
        c,
        <InvitePage
          c={c}
          user={user}
          token={token}
          invite={invite}
          problem={INVITE_PROBLEMS[invite.state]}
        />,
        410,
      );
    }
    return page(
      c,
      <InvitePage c={c} user={user} token={token} invite={invite} alreadyMember={alreadyMember} />,
    );
  });

  app.post('/invite', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const token = inviteToken(one(g.form, 'token', 400));
    const outcome = acceptInvite(db, token, one(g.form, 'workspace', ID_MAX_LENGTH), g.user.id);
    if (!outcome.ok) {
      return page(
        c,
        <InvitePage c={c} user={g.user} token={token} invite={null} problem={outcome.message} />,
        outcome.status,
      );
    }
    c.get('log').info({ userId: g.user.id, workspaceId: outcome.value.workspaceId }, 'invite accepted');
    return back(c, outcome.value.workspaceId, 'joined');
  });

  // ---- Members ---------------------------------------------------------------------------------

  app.post('/workspaces/:id/members/:userId/role', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = changeRole(
      db,
      c.req.param('id'),
      g.user.id,
      c.req.param('userId').slice(0, ID_MAX_LENGTH),
      one(g.form, 'role', 20),
    );
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    // Demoting oneself can end one's access to this page: go where one still may.
    return back(c, c.req.param('id'), 'role');
  });

  app.post('/workspaces/:id/members/:userId/remove', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = removeMember(
      db,
      c.req.param('id'),
      g.user.id,
      c.req.param('userId').slice(0, ID_MAX_LENGTH),
    );
    if (!outcome.ok) return teamRefusal(c, g.user, outcome);
    c.get('log').info(
      { userId: g.user.id, workspaceId: c.req.param('id'), grantsRevoked: outcome.value.grantsRevoked },
      'member removed',
    );
    return back(c, c.req.param('id'), 'removed');
  });

  const memberOf = (ws: TeamNav, userId: string) =>
    listMembers(db, ws.id).find((m) => m.userId === userId) ?? null;

  app.get('/workspaces/:id/members/:userId', (c) => {
    const g = gate(c, 'admin');
    if ('done' in g) return g.done;
    const member = memberOf(g.ws, c.req.param('userId'));
    if (!member)
      return message(c, g.user, 'Member not found', 'That person is not a member of this workspace.', 404);
    if (member.userId !== g.user.id && !mayManage(g.ws.role, member.role)) {
      const whose = member.role === 'owner' ? 'an owner’s' : 'another admin’s';
      return message(c, g.user, 'Owners only', `Only an owner can change ${whose} settings.`, 403, {
        href: `/workspaces/${encodeURIComponent(g.ws.id)}`,
        text: `Back to ${g.ws.name}`,
      });
    }
    return page(c, <MemberSettingsPage c={c} user={g.user} ws={g.ws} member={member} />);
  });

  app.post('/workspaces/:id/members/:userId', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const targetId = c.req.param('userId').slice(0, ID_MAX_LENGTH);
    const input = {
      upstreamUserId: one(g.form, 'upstream_user_id', 400),
      maxScopes: many(g.form, 'max_scopes'),
      monthlyWriteCap: one(g.form, 'monthly_write_cap', 20),
      canChangeWebhook: one(g.form, 'can_change_webhook', 10) === 'on',
      ...(one(g.form, 'preset', 20) === 'read-only' ? { preset: 'read-only' as const } : {}),
    };
    const outcome = setMemberPolicy(db, c.req.param('id'), g.user.id, targetId, input);
    if (outcome.ok) return back(c, c.req.param('id'), 'policy');
    const ws = workspaceOf(c, g.user);
    const member = ws ? memberOf(ws, targetId) : null;
    if (!ws || !member || outcome.status === 404) {
      return outcome.status === 404 || !ws
        ? message(c, g.user, 'Not found', outcome.message, 404)
        : teamRefusal(c, g.user, outcome);
    }
    const errors =
      'errors' in outcome ? outcome.errors : outcome.field ? { [outcome.field]: outcome.message } : {};
    return page(
      c,
      <MemberSettingsPage
        c={c}
        user={g.user}
        ws={ws}
        member={member}
        values={input}
        errors={{ form: outcome.message, ...errors }}
      />,
      outcome.status,
    );
  });

  // ---- Connected apps ----------------------------------------------------------------------------

  const APP_NOTICES: Record<string, string> = {
    revoked: 'App disconnected. Its next request is refused; it can ask you again.',
  };

  app.get('/account/apps', (c) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    const done = c.req.query('done');
    return page(
      c,
      <MyAppsPage
        c={c}
        user={user}
        apps={listAppsForUser(db, user.id)}
        adminOf={listWorkspacesForUser(db, user.id).filter((w) => isAdminRole(w.role))}
        notice={done ? (APP_NOTICES[done] ?? null) : null}
      />,
    );
  });

  app.post('/account/apps/revoke', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = revokeOwnApp(db, g.user.id, one(g.form, 'grant', ID_MAX_LENGTH));
    if (!outcome.ok) {
      return page(
        c,
        <MyAppsPage
          c={c}
          user={g.user}
          apps={listAppsForUser(db, g.user.id)}
          adminOf={listWorkspacesForUser(db, g.user.id).filter((w) => isAdminRole(w.role))}
          error={outcome.message}
        />,
        outcome.status,
      );
    }
    return c.redirect('/account/apps?done=revoked', 303);
  });

  app.get('/workspaces/:id/apps', (c) => {
    const g = gate(c, 'admin');
    if ('done' in g) return g.done;
    const done = c.req.query('done');
    return page(
      c,
      <WorkspaceAppsPage
        c={c}
        user={g.user}
        ws={g.ws}
        apps={listAppsForWorkspace(db, g.ws.id)}
        notice={done ? (APP_NOTICES[done] ?? null) : null}
      />,
    );
  });

  app.post('/workspaces/:id/apps/revoke', sameOrigin, async (c) => {
    const g = await postGate(c);
    if ('done' in g) return g.done;
    const outcome = revokeWorkspaceApp(db, c.req.param('id'), g.user.id, one(g.form, 'grant', ID_MAX_LENGTH));
    if (!outcome.ok) {
      const ws = workspaceOf(c, g.user);
      if (!ws) return notFound(c, g.user);
      if (!isAdminRole(ws.role)) return adminsOnly(c, g.user, ws);
      return page(
        c,
        <WorkspaceAppsPage
          c={c}
          user={g.user}
          ws={ws}
          apps={listAppsForWorkspace(db, ws.id)}
          error={outcome.message}
        />,
        outcome.status,
      );
    }
    return c.redirect(`/workspaces/${encodeURIComponent(c.req.param('id'))}/apps?done=revoked`, 303);
  });

  // ---- Audit trail -------------------------------------------------------------------------------

  app.get('/workspaces/:id/audit', (c) => {
    const g = gate(c, 'admin');
    if ('done' in g) return g.done;
    const { filters, errors } = parseAuditFilters(c.req.query());
    const format = c.req.query('format');
    if (format === 'csv' || format === 'json') {
      const rows = exportAudit(db, g.ws.id, filters);
      const stamp = new Date().toISOString().slice(0, 10);
      c.header('Cache-Control', 'no-store');
      c.header('Content-Disposition', `attachment; filename="audit-${stamp}.${format}"`);
      if (format === 'csv') {
        c.header('Content-Type', 'text/csv; charset=utf-8');
        return c.body(auditCsv(rows));
      }
      return c.json({ workspace: { id: g.ws.id, name: g.ws.name }, filters, events: auditJson(rows) });
    }
    const { rows, hasMore } = queryAudit(db, g.ws.id, filters);
    return page(
      c,
      <AuditPage
        c={c}
        user={g.user}
        ws={g.ws}
        members={listMembers(db, g.ws.id)}
        filters={filters}
        errors={errors}
        rows={rows}
        hasMore={hasMore}
        retentionDays={config.auditRetentionDays}
      />,
      Object.keys(errors).length ? 400 : 200,
    );
  });

  // ---- Usage -------------------------------------------------------------------------------------

  app.get('/workspaces/:id/usage', async (c) => {
    const g = gate(c, 'admin');
    if ('done' in g) return g.done;
    const asked = Number(c.req.query('days'));
    const days = (USAGE_DAYS as readonly number[]).includes(asked) ? asked : 30;
    const byDay = toolCallsByDay(db, g.ws.id, days);
    const upstream = await fetchUpstreamUsage(
      {
        db,
        secrets,
        upstream: deps.upstream,
        tokenHeader: config.upstream.tokenHeader,
        userHeader: config.upstream.userHeader,
      },
      g.ws.id,
    );
    if (!upstream.ok) c.get('log').info({ workspaceId: g.ws.id }, 'upstream usage unavailable');
    const members = listMembers(db, g.ws.id);
    return page(
      c,
      <UsagePage
        c={c}
        user={g.user}
        ws={g.ws}
        days={days}
        daysOptions={USAGE_DAYS}
        totals={totalsByMemberAndTool(byDay)}
        byDay={byDay}
        upstream={upstream}
        memberByUpstreamId={new Map(members.map((m) => [m.upstreamUserId, m.email]))}
      />,
    );
  });

  return app;
}
