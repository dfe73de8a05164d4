import { Hono } from 'hono';
import type { AppEnv } from '../../../http/env.js';
import { CREDIT_SPENDING_TOOLS } from '../../../mcp/tools/index.js';
import { setMemberPolicy } from '../../../teams/member-policy.js';
import { changeRole, mayManage, removeMember } from '../../../teams/members.js';
import { membersWithUsage } from '../../../teams/overview.js';
import { many, one } from '../../kit/form-data.js';
import { privatePage } from '../../layout.js';
import { ID_MAX_LENGTH, type TeamContext } from '../context.js';
import type { TeamNav } from '../frame.js';
import { MemberSettingsPage } from './settings-page.js';

/** Members: change a role, remove someone, and one member's settings (limits, user ID, webhook). */
export function memberRoutes(t: TeamContext) {
  const { db } = t;
  const app = new Hono<AppEnv>();
  const targetOf = (param: string | undefined) => (param ?? '').slice(0, ID_MAX_LENGTH);
  const memberOf = async (ws: TeamNav, userId: string) =>
    (await membersWithUsage(db, ws.id, CREDIT_SPENDING_TOOLS)).find((m) => m.userId === userId) ?? null;

  app.post('/workspaces/:id/members/:userId/role', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await changeRole(
      db,
      c.req.param('id'),
      g.user.id,
      targetOf(c.req.param('userId')),
      one(g.form, 'role', 20),
    );
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    // Demoting oneself can end one's access to admin pages: the team page is still theirs.
    return t.back(c, c.req.param('id'), 'role');
  });

  app.post('/workspaces/:id/members/:userId/remove', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const outcome = await removeMember(db, c.req.param('id'), g.user.id, targetOf(c.req.param('userId')));
    if (!outcome.ok) return t.teamRefusal(c, g.user, outcome);
    c.get('log').info(
      { userId: g.user.id, workspaceId: c.req.param('id'), grantsRevoked: outcome.value.grantsRevoked },
      'member removed',
    );
    return t.back(c, c.req.param('id'), 'removed');
  });

  app.get('/workspaces/:id/members/:userId', async (c) => {
    const g = await t.viewer(c, 'admin');
    if ('done' in g) return g.done;
    const member = await memberOf(g.ws, c.req.param('userId'));
    if (!member)
      return t.message(c, g.user, 'Member not found', 'That person is not a member of this workspace.', 404);
    if (member.userId !== g.user.id && !mayManage(g.ws.role, member.role)) {
      const whose = member.role === 'owner' ? 'an owner’s' : 'another admin’s';
      return t.message(
        c,
        g.user,
        'Owners only',
        `Only an owner can change ${whose} settings.`,
        403,
        t.backTo(g.ws),
      );
    }
    return privatePage(c, <MemberSettingsPage c={c} user={g.user} ws={g.ws} member={member} />);
  });

  app.post('/workspaces/:id/members/:userId', t.sameOrigin, async (c) => {
    const g = await t.poster(c);
    if ('done' in g) return g.done;
    const targetId = targetOf(c.req.param('userId'));
    const input = {
      upstreamUserId: one(g.form, 'upstream_user_id', 400),
      maxScopes: many(g.form, 'max_scopes'),
      monthlyWriteCap: one(g.form, 'monthly_write_cap', 20),
      canChangeWebhook: one(g.form, 'can_change_webhook', 10) === 'on',
      ...(one(g.form, 'preset', 20) === 'read-only' ? { preset: 'read-only' as const } : {}),
    };
    const outcome = await setMemberPolicy(db, c.req.param('id'), g.user.id, targetId, input);
    if (outcome.ok) return t.back(c, c.req.param('id'), 'policy');
    const ws = await t.workspaceOf(c, g.user);
    const member = ws ? await memberOf(ws, targetId) : null;
    if (!ws || !member || outcome.status === 404) {
      return outcome.status === 404 || !ws
        ? t.message(c, g.user, 'Not found', outcome.message, 404)
        : await t.teamRefusal(c, g.user, outcome);
    }
    const errors =
      'errors' in outcome ? outcome.errors : outcome.field ? { [outcome.field]: outcome.message } : {};
    return privatePage(
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

  return app;
}
