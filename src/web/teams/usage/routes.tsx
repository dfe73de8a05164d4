import { Hono } from 'hono';
import { toolCallsByDay } from '../../../audit/tool-usage.js';
import type { AppEnv } from '../../../http/env.js';
import { CREDIT_SPENDING_TOOLS } from '../../../mcp/tools/index.js';
import { membersWithUsage } from '../../../teams/overview.js';
import { fetchUpstreamUsage, totalsByMemberAndTool, USAGE_DAYS } from '../../../teams/usage.js';
import { privatePage } from '../../layout.js';
import type { TeamContext } from '../context.js';
import { UsagePage } from './page.js';
import { dailyCallsByMember, periodDays } from './series.js';

/** The workspace's usage page (admins). */
export function usageRoutes(t: TeamContext) {
  const { db, config, deps } = t;
  const app = new Hono<AppEnv>();

  app.get('/workspaces/:id/usage', async (c) => {
    const g = await t.viewer(c, 'admin');
    if ('done' in g) return g.done;
    const asked = Number(c.req.query('days'));
    const days = (USAGE_DAYS as readonly number[]).includes(asked) ? asked : 30;
    const now = Date.now();
    const byDay = await toolCallsByDay(db, g.ws.id, days, now);
    const usage = await fetchUpstreamUsage(
      {
        db,
        secrets: deps.secrets,
        upstream: deps.upstream,
        tokenHeader: config.upstream.tokenHeader,
        userHeader: config.upstream.userHeader,
      },
      g.ws.id,
    );
    if (!usage.ok) c.get('log').info({ workspaceId: g.ws.id }, 'upstream usage unavailable');
    const members = await membersWithUsage(db, g.ws.id, CREDIT_SPENDING_TOOLS, now);
    return privatePage(
      c,
      <UsagePage
        c={c}
        user={g.user}
        ws={g.ws}
        days={days}
        daysOptions={USAGE_DAYS}
        daily={dailyCallsByMember(byDay, periodDays(days, now))}
        members={members}
        totals={totalsByMemberAndTool(byDay)}
        upstream={{ usage, memberByUpstreamId: new Map(members.map((m) => [m.upstreamUserId, m.email])) }}
      />,
    );
  });

  return app;
}
