import { getCredentialSummary } from '../accounts/credentials.js';
import type { WorkspaceRole } from '../accounts/workspaces.js';
import { toolCallCountsByUser } from '../audit/tool-usage.js';
import type { Store } from '../db/store/index.js';
import { type InviteView, listInvites } from './invites.js';
import { listMembers, type MemberView } from './members.js';
import { getTeamSettings, type TeamSettings } from './team-settings.js';
import { isAdminRole } from './teams.js';
import { COUNTED_STATUSES, type CreditSpendingTools, startOfUtcMonth } from './write-cap.js';

/** A member with this UTC month's credit-spending calls (what their monthly cap counts). */
export interface MemberWithUsage extends MemberView {
  writesThisMonth: number;
}

/**
 * Credit-spending calls upstream accepted this UTC month, per member of the workspace: the figure the
 * write cap compares with the cap (write-cap.ts), without the calls in flight.
 */
export function writesThisMonthByMember(
  db: Store,
  workspaceId: string,
  tools: CreditSpendingTools,
  now = Date.now(),
): Promise<Map<string, number>> {
  return toolCallCountsByUser(db, {
    workspaceId,
    since: startOfUtcMonth(now),
    tools,
    statuses: COUNTED_STATUSES,
  });
}

/** The workspace's members with their calls this month, in the team page's order (owners first). */
export async function membersWithUsage(
  db: Store,
  workspaceId: string,
  spendingTools: CreditSpendingTools,
  now = Date.now(),
): Promise<MemberWithUsage[]> {
  const used = await writesThisMonthByMember(db, workspaceId, spendingTools, now);
  return (await listMembers(db, workspaceId)).map((m) => ({
    ...m,
    writesThisMonth: used.get(m.userId) ?? 0,
  }));
}

export interface TeamOverview {
  members: MemberWithUsage[];
  /** Only for owners and admins (the links themselves are never stored). */
  invites: InviteView[];
  hasCredential: boolean;
  settings: TeamSettings;
}

/** Everything the team page shows, read for a viewer with this role. */
export async function teamOverview(
  db: Store,
  ws: { id: string; kind: 'personal' | 'team'; role: WorkspaceRole },
  spendingTools: CreditSpendingTools,
  now = Date.now(),
): Promise<TeamOverview> {
  const team = ws.kind === 'team';
  return {
    members: team ? await membersWithUsage(db, ws.id, spendingTools, now) : [],
    invites: team && isAdminRole(ws.role) ? await listInvites(db, ws.id, now) : [],
    hasCredential: (await getCredentialSummary(db, ws.id)) !== null,
    settings: await getTeamSettings(db, ws.id),
  };
}
