import { Hono } from 'hono';
import { getMembership } from '../../../accounts/workspaces.js';
import type { AppEnv } from '../../../http/env.js';
import {
  acceptInvite,
  createInvite,
  INVITE_NOTE_MAX_LENGTH,
  INVITE_PROBLEMS,
  lookupInvite,
  revokeInvite,
} from '../../../teams/invites.js';
import { one } from '../../kit/form-data.js';
import { privatePage } from '../../layout.js';
import { ID_MAX_LENGTH, type TeamContext } from '../context.js';
import { InvitePage } from './accept-page.js';

const INVITE_TOKEN_MAX_LENGTH = 200;

/** Invite links: create (shown once), withdraw, open and accept. */
export function inviteRoutes(t: TeamContext) {
  const { db, config } = t;
  const app = new Hono<AppEnv>();

  app.post('/workspaces/:id/invites', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const input = {
      role: one(g.form, 'role', 20),
      maxUses: one(g.form, 'max_uses', 20),
      expiresInDays: one(g.form, 'expires_in_days', 20),
      note: one(g.form, 'note', INVITE_NOTE_MAX_LENGTH * 2),
    };
    const values = {
      inviteRole: input.role,
      inviteMaxUses: input.maxUses,
      inviteDays: input.expiresInDays,
      inviteNote: input.note,
    };
    const outcome = await createInvite(db, c.req.param('id'), g.user.id, input);
    if (!outcome.ok) {
      return t.teamRefusal(c, g.user, outcome, 'errors' in outcome ? { invite: outcome.errors } : {}, values);
    }
    const ws = await t.workspaceOf(c, g.user);
    if (!ws) return t.notFound(c, g.user);
    const url = `${config.publicUrl}/invite?${new URLSearchParams({ token: outcome.value.token }).toString()}`;
    const newInvite = {
      url,
      role: input.role,
      expiresAt: outcome.value.expiresAt,
      maxUses: input.maxUses.trim() ? Number(input.maxUses) : null,
      note: outcome.value.note,
    };
    return t.teamPage(c, g.user, ws, { newInvite }, 201);
  });

  app.post('/workspaces/:id/invites/:inviteId/revoke', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const inviteId = c.req.param('inviteId').slice(0, ID_MAX_LENGTH);
    const outcome = await revokeInvite(db, c.req.param('id'), g.user.id, inviteId);
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    return t.back(c, c.req.param('id'), 'withdrawn');
  });

  const inviteToken = (raw: string | undefined) => (raw ?? '').trim().slice(0, INVITE_TOKEN_MAX_LENGTH + 1);

  app.get('/invite', async (c) => {
    const user = c.get('user');
    const token = inviteToken(c.req.query('token'));
    const invite = token.length <= INVITE_TOKEN_MAX_LENGTH ? await lookupInvite(db, token) : null;
    if (!invite)
      return privatePage(
        c,
        <InvitePage c={c} user={user} token={token} invite={null} problem={INVITE_PROBLEMS.unknown} />,
        404,
      );
    const alreadyMember = user ? (await getMembership(db, invite.workspaceId, user.id)) !== null : false;
    if (!alreadyMember && invite.state !== 'usable') {
      return privatePage(
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
    return privatePage(
      c,
      <InvitePage c={c} user={user} token={token} invite={invite} alreadyMember={alreadyMember} />,
    );
  });

  app.post('/invite', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const token = inviteToken(one(g.form, 'token', 400));
    const outcome = await acceptInvite(db, token, one(g.form, 'workspace', ID_MAX_LENGTH), g.user.id);
    if (!outcome.ok) {
      return privatePage(
        c,
        <InvitePage c={c} user={g.user} token={token} invite={null} problem={outcome.message} />,
        outcome.status,
      );
    }
    c.get('log').info({ userId: g.user.id, workspaceId: outcome.value.workspaceId }, 'invite accepted');
    return t.back(c, outcome.value.workspaceId, 'joined');
  });

  return app;
}
