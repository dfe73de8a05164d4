import { type AuditWriter, recordAudit } from '../audit/record.js';

/** Team events of the audit trail: who changed what in a workspace. Never tokens or invite links. */
export type TeamEventKind =
  | 'team_created'
  | 'team_renamed'
  | 'team_deleted'
  | 'invite_created'
  | 'invite_revoked'
  | 'invite_accepted'
  | 'member_role_changed'
  | 'member_removed'
  | 'member_left'
  | 'member_policy_changed'
  | 'team_settings_changed'
  | 'webhook_changed';

export function recordTeamEvent(
  db: AuditWriter,
  event: {
    kind: TeamEventKind;
    workspaceId: string;
    /** Who did it. */
    actorId: string;
    status?: string;
    detail?: Record<string, string | number | boolean | null>;
  },
  now = Date.now(),
): Promise<void> {
  return recordAudit(
    db,
    {
      kind: event.kind,
      userId: event.actorId,
      workspaceId: event.workspaceId,
      status: event.status ?? 'ok',
      detail: event.detail ?? null,
    },
    now,
  );
}
