import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { getMembership, type WorkspaceRole } from '../../accounts/workspaces.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { AppEnv, SessionUser } from '../../http/env.js';
import { CREDIT_SPENDING_TOOLS } from '../../mcp/tools/index.js';
import type { SecretBox } from '../../security/secrets.js';
import type { Refusal } from '../../teams/outcome.js';
import { teamOverview } from '../../teams/overview.js';
import { isAdminRole } from '../../teams/teams.js';
import { csrfGate } from '../kit/csrf-gate.js';
import type { FormAll } from '../kit/form-data.js';
import { MessagePage } from '../kit/message-page.js';
import { privatePage } from '../layout.js';
import { requireUser } from '../session.js';
import { type TeamNav, teamPath } from './frame.js';
import { type NewInvite, TeamPage, type TeamPageErrors, type TeamPageValues } from './team-page.js';

export interface TeamRoutesDeps {
  config: Config;
  db: Store;
  secrets: SecretBox;
  upstream: { searchUrl: string; agentUrl: string };
}

/** Ids in paths and forms are ours (UUIDs); anything longer names nothing. */
export const ID_MAX_LENGTH = 64;

/** A response to send instead of going on. */
export type Halt = { done: Response | Promise<Response> };

/**
 * What every team feature's routes share: who is asking and in which workspace, the CSRF gate, the
 * pages for a refusal, and the team page itself (where most refusals are shown, beside their form).
 * Every state change: origin check, CSRF token, then the domain function in src/teams/, which checks
 * the actor's role inside its own transaction.
 */
export function teamContext(deps: TeamRoutesDeps) {
  const { db } = deps;
  const gate = csrfGate(deps.config);

  const message = (
    c: Context<AppEnv>,
    user: SessionUser | null,
    title: string,
    text: string,
    status: ContentfulStatusCode,
    link = { href: '/account', text: 'Back to your account' },
  ) =>
    privatePage(
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

  const notFound = (c: Context<AppEnv>, user: SessionUser) =>
    message(
      c,
      user,
      'Workspace not found',
      'There is no such workspace, or you are not a member of it.',
      404,
    );

  const backTo = (ws: TeamNav) => ({ href: teamPath(ws), text: `Back to ${ws.name}` });

  const adminsOnly = (c: Context<AppEnv>, user: SessionUser, ws: TeamNav) =>
    message(
      c,
      user,
      'Admins only',
      "Only the workspace's owners and admins can see this page.",
      403,
      backTo(ws),
    );

  /** The workspace of the path, if the signed-in user is a member of it. */
  const workspaceOf = async (c: Context<AppEnv>, user: SessionUser): Promise<TeamNav | null> => {
    const id = (c.req.param('id') ?? '').slice(0, ID_MAX_LENGTH);
    const m = await getMembership(db, id, user.id);
    return m ? { id: m.workspaceId, name: m.name, kind: m.kind, role: m.role } : null;
  };

  /** The signed-in user and their workspace (for admin pages, only with an admin role), or the response. */
  const viewer = async (
    c: Context<AppEnv>,
    needs: WorkspaceRole = 'member',
  ): Promise<Halt | { user: SessionUser; ws: TeamNav }> => {
    const user = requireUser(c);
    if (user instanceof Response) return { done: user };
    const ws = await workspaceOf(c, user);
    if (!ws) return { done: notFound(c, user) };
    if (needs !== 'member' && !isAdminRole(ws.role)) return { done: adminsOnly(c, user, ws) };
    return { user, ws };
  };

  /** The signed-in user and a form carrying their CSRF token, or the response to send. */
  const poster = async (c: Context<AppEnv>): Promise<Halt | { user: SessionUser; form: FormAll }> => {
    const user = requireUser(c);
    if (user instanceof Response) return { done: user };
    const form = await gate.checkedFormAll(c);
    if (!form) return { done: gate.refused(c) };
    return { user, form };
  };

  /** The team page, with a notice, a just-created invite link, or a refused form's errors and values. */
  const teamPage = async (
    c: Context<AppEnv>,
    user: SessionUser,
    ws: TeamNav,
    options: {
      notice?: string | null;
      errors?: TeamPageErrors;
      values?: TeamPageValues;
      newInvite?: NewInvite;
    } = {},
    status: ContentfulStatusCode = 200,
  ) =>
    privatePage(
      c,
      <TeamPage
        c={c}
        user={user}
        ws={ws}
        overview={await teamOverview(db, ws, CREDIT_SPENDING_TOOLS)}
        notice={options.notice ?? null}
        newInvite={options.newInvite ?? null}
        errors={options.errors ?? {}}
        values={options.values ?? {}}
      />,
      status,
    );

  /** A refused team action shown on the team page (or a plain page when the team is gone for them). */
  const teamRefusal = async (
    c: Context<AppEnv>,
    user: SessionUser,
    refusal: Refusal,
    errors: TeamPageErrors = {},
    values: TeamPageValues = {},
  ) => {
    const ws = await workspaceOf(c, user);
    if (!ws)
      return refusal.status === 404
        ? notFound(c, user)
        : message(c, user, 'Refused', refusal.message, refusal.status);
    const fieldError = refusal.field ? { [refusal.field]: refusal.message } : {};
    return teamPage(
      c,
      user,
      ws,
      { errors: { form: refusal.message, ...errors, ...fieldError }, values },
      refusal.status,
    );
  };

  /** After a change: back to the team page with its notice (303: the browser follows with GET). */
  const back = (c: Context<AppEnv>, workspaceId: string, done: string) =>
    c.redirect(`${teamPath({ id: workspaceId })}?done=${done}`, 303);

  return {
    db,
    config: deps.config,
    deps,
    sameOrigin: gate.sameOrigin,
    message,
    notFound,
    adminsOnly,
    backTo,
    workspaceOf,
    viewer,
    poster,
    teamPage,
    teamRefusal,
    back,
  };
}

export type TeamContext = ReturnType<typeof teamContext>;
