import { isScope, parseScopes, type Scope } from '../oauth/scopes.js';
import { READ_ONLY_SCOPES } from './member-policy.js';
import { ITEM_KINDS, ITEM_NAMES, type ItemKind } from './ownership.js';

/** Why the team policy refused a tool call, in words (the audit row's detail.reason). */
export function refusalWords(detail: Record<string, unknown>): string {
  const item = ITEM_KINDS.includes(detail.item as ItemKind) ? ITEM_NAMES[detail.item as ItemKind] : 'item';
  switch (detail.reason) {
    case 'write_cap':
      return 'the monthly cap on credit-spending calls was reached';
    case 'not_owner':
      return `the ${item} belongs to another member`;
    case 'owner_unknown':
      return `nobody can tell who created the ${item}`;
    case 'teammates_work':
      return 'members of this team read only their own runs, schedules and searches';
    case 'team_webhook':
      return 'they may not change the team webhook';
    case 'insufficient_scope':
      return 'the connection lacks that permission';
    case 'scope_ceiling':
      return `their team settings do not allow ${typeof detail.scope === 'string' && isScope(detail.scope) ? SCOPE_SHORT_NAMES[detail.scope] : 'that permission'}`;
    default:
      return typeof detail.reason === 'string' ? detail.reason.replaceAll('_', ' ') : 'refused';
  }
}

/** Short plain names of the permissions, for tables and the audit trail. */
export const SCOPE_SHORT_NAMES: Record<Scope, string> = {
  'searches:read': 'read searches',
  'searches:write': 'start searches',
  'agent:read': 'read agent runs and schedules',
  'agent:write': 'start and change agent runs and schedules',
  'account:read': 'read usage and the webhook setup',
  'account:write': 'set the webhook',
};

/** A scope ceiling in words: all, read-only, none, or the permissions it allows. */
export function ceilingWords(maxScopes: string | null): string {
  if (maxScopes === null) return 'all permissions';
  const scopes = parseScopes(maxScopes);
  if (scopes.length === 0) return 'no permissions';
  if (scopes.length === READ_ONLY_SCOPES.length && scopes.every((s) => READ_ONLY_SCOPES.includes(s)))
    return 'read-only';
  const names = scopes.map((s) => SCOPE_SHORT_NAMES[s]);
  return names.length === 1
    ? `only ${names[0]}`
    : `only ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export interface DescribableEvent {
  kind: string;
  tool: string | null;
  status: string | null;
  detail: string | null;
}

function parseDetail(detail: string | null): Record<string, unknown> {
  if (!detail) return {};
  try {
    const value: unknown = JSON.parse(detail);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * One plain sentence for the audit page's team-policy events, or null when the raw kind says enough.
 * `nameOf` turns a member's account id into something a person recognises (their email).
 */
export function describeAuditEvent(row: DescribableEvent, nameOf: (userId: string) => string): string | null {
  const d = parseDetail(row.detail);
  const member = typeof d.member === 'string' ? nameOf(d.member) : 'a member';
  switch (row.kind) {
    case 'tool_call':
      return row.status === 'refused' ? `Refused ${row.tool ?? 'a tool call'}: ${refusalWords(d)}.` : null;
    case 'webhook_changed':
      return `Changed the team webhook from ${typeof d.from === 'string' ? d.from : 'none'} to ${typeof d.to === 'string' ? d.to : 'none'}.`;
    case 'team_settings_changed':
      return d.membersReadTeamWork
        ? 'Members may now read teammates’ runs, schedules and searches.'
        : 'Members now read only their own runs, schedules and searches.';
    case 'member_policy_changed': {
      const cap =
        typeof d.monthlyWriteCap === 'number' ? `cap ${d.monthlyWriteCap} a month` : 'no monthly cap';
      const hook =
        d.canChangeWebhook === undefined
          ? ''
          : d.canChangeWebhook
            ? ', can change the team webhook'
            : ', cannot change the team webhook';
      const preset = d.preset === 'read-only' ? ' (Read-only preset)' : '';
      return `Settings of ${member}${preset}: ${ceilingWords((d.maxScopes as string | null) ?? null)}, ${cap}${hook}.`;
    }
    case 'access_refused':
      return d.reason === 'member_removed'
        ? 'Refused an app of someone no longer in the team.'
        : `Refused an app's access: ${refusalWords(d)}.`;
    case 'grant_renewed':
      return 'Connected an app again (the connection was renewed; other devices stay signed in).';
    case 'token_family_revoked':
      return `Signed one device of a connected app out${typeof d.reason === 'string' ? ` (${d.reason.replaceAll('_', ' ')})` : ''}.`;
    case 'member_policy_refused':
      return `Refused a settings change for ${member}: ${typeof d.reason === 'string' ? d.reason : 'not allowed'}`;
    default:
      return null;
  }
}
