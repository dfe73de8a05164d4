import type { WorkspaceRole } from '../accounts/workspaces.js';
import type { Store } from '../db/store/index.js';
import { recordTeamEvent } from './events.js';

/**
 * The upstream account's webhook (`PUT /api/setup` return_url) receives every completed search of the
 * whole team, so changing it is a team-wide act: owners and admins may by default, plain members only
 * when an owner or admin ticks "Can change team webhook" on their settings.
 */
export function roleMayChangeWebhook(role: WorkspaceRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** The member's switch when set, else their role's default. */
export function mayChangeWebhook(role: WorkspaceRole, switchValue: boolean | null): boolean {
  return switchValue ?? roleMayChangeWebhook(role);
}

/**
 * A webhook URL as the audit trail keeps it: scheme, host and path. The query string often carries
 * the receiver's secret, so only its presence is kept; user info and fragment are dropped.
 */
export function redactWebhookUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '(not a URL)';
  }
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?(redacted)' : ''}`;
}

/** The audit row of a webhook change: who, and the old and new URL (redacted). */
export function recordWebhookChange(
  db: Store,
  change: { workspaceId: string; actorId: string; from: unknown; to: unknown },
): Promise<void> {
  return recordTeamEvent(db, {
    kind: 'webhook_changed',
    workspaceId: change.workspaceId,
    actorId: change.actorId,
    detail: { from: redactWebhookUrl(change.from), to: redactWebhookUrl(change.to) },
  });
}
