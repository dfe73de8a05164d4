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
    case 'read_only':
      return 'the connection is read-only';
    case 'toolset':
      return `the connection did not choose the toolset ${typeof detail.toolset === 'string' ? detail.toolset.replaceAll('_', ' ') : 'of that tool'}`;
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

function parseDetail(detail: string | null): Record<string, unknown> {
  if (!detail) return {};
  try {
    const value: unknown = JSON.parse(detail);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The audit filter's kinds, in words (the query string keeps the codes). */
export const AUDIT_KIND_NAMES: Record<string, string> = {
  tool_call: 'Tool calls',
  sign_in: 'Sign-ins',
  grant_created: 'Apps connected',
  grant_renewed: 'Apps connected again',
  grant_revoked: 'Apps disconnected',
  access_token_created: 'Access tokens created',
  access_token_revoked: 'Access tokens revoked',
  token_family_revoked: 'Devices signed out',
  token_branch_revoked: 'Duplicate sessions ended',
  access_refused: 'Apps refused',
  credential_linked: 'Credentials linked',
  credential_removed: 'Credentials removed',
  team_created: 'Team created',
  team_renamed: 'Team renamed',
  invite_created: 'Invite links created',
  invite_revoked: 'Invite links withdrawn',
  invite_accepted: 'Invitations accepted',
  member_role_changed: 'Roles changed',
  member_policy_changed: 'Member settings changed',
  member_policy_refused: 'Member settings refused',
  team_settings_changed: 'Team settings changed',
  webhook_changed: 'Webhook changed',
  member_removed: 'Members removed',
  member_left: 'Members who left',
  signed_out_everywhere: 'Signed out everywhere',
  account_created: 'Accounts created',
};

/** An audit row's status in words: done, refused, failed (with the API's HTTP status). */
export function statusWords(status: string | null): string {
  switch (status) {
    case null:
    case 'ok':
      return 'Done';
    case 'refused':
      return 'Refused';
    case 'cancelled':
      return 'Cancelled';
    case 'invalid':
      return 'Invalid arguments';
    case 'error':
      return 'Failed';
    default:
      return /^\d{3}$/.test(status) ? `Failed (the API answered HTTP ${status})` : status;
  }
}

const DAY_MS = 24 * 3600 * 1000;
const GRANT_END_REASONS: Record<string, string> = {
  revoked_by_user: 'by the person who connected it',
  revoked_by_admin: 'by a team admin',
  member_removed: 'the member was removed from the team',
  member_left: 'the member left the team',
  refresh_token_reuse: 'a refresh token was used twice',
  code_replay: 'an authorization code was used twice',
  password_reset: 'the password was reset',
  password_changed: 'the password was changed',
  signed_out_everywhere: 'signed out everywhere',
  access_tokens_turned_off: 'access tokens were turned off in the workspace',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const roleWords = (role: unknown) =>
  role === 'admin' ? 'an admin' : role === 'owner' ? 'an owner' : 'a member';
const disconnected = (n: unknown) =>
  typeof n === 'number' && n > 0
    ? `; ${plural(n, 'connected app was', 'connected apps were')} disconnected`
    : '';

export interface DescribableEvent {
  kind: string;
  tool: string | null;
  status: string | null;
  detail: string | null;
  /** When it happened (epoch ms), for durations such as an invite's validity. */
  at?: number;
}

/**
 * One plain sentence (without its subject: the page shows who in its own column) for any audit event.
 * `nameOf` turns a member's account id into something a person recognises (their email); raw ids and
 * JSON never reach the page (the CSV and JSON exports keep them).
 */
export function describeAuditEvent(row: DescribableEvent, nameOf: (userId: string) => string): string {
  const d = parseDetail(row.detail);
  const member = typeof d.member === 'string' ? nameOf(d.member) : 'a member';
  switch (row.kind) {
    case 'tool_call':
      if (row.status === 'refused') return `Refused ${row.tool ?? 'a tool call'}: ${refusalWords(d)}.`;
      return `Called ${row.tool ?? 'a tool'}${repeatedWords(d)}${callStatusWords(row.status)}.`;
    case 'webhook_changed':
      return `Changed the team webhook from ${typeof d.from === 'string' ? d.from : 'none'} to ${typeof d.to === 'string' ? d.to : 'none'}.`;
    case 'team_settings_changed':
      if (typeof d.accessTokensAllowed === 'boolean')
        return d.accessTokensAllowed
          ? `Access tokens allowed, for at most ${plural(Number(d.accessTokenMaxDays), 'day', 'days')}.`
          : `Access tokens turned off${typeof d.tokensRevoked === 'number' && d.tokensRevoked > 0 ? ` (${plural(d.tokensRevoked, 'token was', 'tokens were')} revoked)` : ''}.`;
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
    case 'grant_created': {
      const scopes = parseScopes(typeof d.scopes === 'string' ? d.scopes : '');
      return scopes.length
        ? `Connected an app allowed to ${listWords(scopes.map((s) => SCOPE_SHORT_NAMES[s]))}.`
        : 'Connected an app.';
    }
    case 'grant_renewed':
      return 'Connected an app again (the connection was renewed; other devices stay signed in).';
    case 'grant_revoked': {
      const why =
        typeof d.reason === 'string' ? (GRANT_END_REASONS[d.reason] ?? d.reason.replaceAll('_', ' ')) : null;
      return `An app was disconnected${why ? ` (${why})` : ''}.`;
    }
    case 'token_branch_revoked':
      return 'Ended a duplicate session of a connected app (its refresh token had been used twice at once; the session used first afterwards continues).';
    case 'access_token_created': {
      const scopes = parseScopes(typeof d.scopes === 'string' ? d.scopes : '');
      const days =
        typeof d.expiresAt === 'number' && row.at !== undefined
          ? `, valid ${plural(Math.max(1, Math.round((d.expiresAt - row.at) / DAY_MS)), 'day', 'days')}`
          : '';
      return `Created the access token “${String(d.name ?? '')}” allowed to ${listWords(scopes.map((s) => SCOPE_SHORT_NAMES[s]))}${d.readOnly ? ' (read-only)' : ''}${days}.`;
    }
    case 'access_token_revoked': {
      const why =
        d.reason === 'revoked_by_user'
          ? 'by its owner'
          : typeof d.reason === 'string'
            ? (GRANT_END_REASONS[d.reason] ?? d.reason.replaceAll('_', ' '))
            : null;
      return `The access token “${String(d.name ?? '')}” was revoked${why ? ` (${why})` : ''}.`;
    }
    case 'token_family_revoked':
      return `Signed one device of a connected app out${typeof d.reason === 'string' ? ` (${d.reason.replaceAll('_', ' ')})` : ''}.`;
    case 'member_policy_refused': {
      // The reason is the refusal's own message (member-policy.ts); a code is never shown.
      const reason = typeof d.reason === 'string' && !/_/.test(d.reason) ? d.reason.trim() : '';
      return reason
        ? `Refused a settings change for ${member}: ${reason.replace(/[.!]?$/, '.')}`
        : `Refused a settings change for ${member}.`;
    }
    case 'sign_in':
      return 'Signed in.';
    case 'signed_out_everywhere':
      return typeof d.sessions === 'number'
        ? `Signed out everywhere (${plural(d.sessions, 'session', 'sessions')} ended${disconnected(d.apps)}).`
        : 'Signed out everywhere.';
    case 'password_changed':
      return `Changed their password${disconnected(d.appsDisconnected)}.`;
    case 'password_change_failed':
      return 'Tried to change their password with a wrong current password.';
    case 'account_created':
      return 'Created their account.';
    case 'password_reset':
      return `Had their password reset from the command line${disconnected(d.appsDisconnected)}.`;
    case 'credential_linked':
      return 'Linked the workspace’s API credentials.';
    case 'credential_removed':
      return 'Removed the workspace’s API credentials.';
    case 'team_created':
      return `Created the team${typeof d.name === 'string' ? ` “${d.name}”` : ''}.`;
    case 'team_renamed':
      return `Renamed the team from “${String(d.from ?? '')}” to “${String(d.to ?? '')}”.`;
    case 'team_deleted':
      return 'Deleted the team.';
    case 'invite_created': {
      const uses =
        typeof d.maxUses === 'number'
          ? d.maxUses === 1
            ? 'one person'
            : `up to ${d.maxUses} people`
          : 'any number of people';
      const days =
        typeof d.expiresAt === 'number' && row.at !== undefined
          ? `, valid ${plural(Math.max(1, Math.round((d.expiresAt - row.at) / DAY_MS)), 'day', 'days')}`
          : '';
      return `Created an invite link to join as ${roleWords(d.role)}, for ${uses}${days}.`;
    }
    case 'invite_revoked':
      return 'Withdrew an invite link.';
    case 'invite_accepted':
      return `Joined the team as ${roleWords(d.role)} with an invite link.`;
    case 'member_role_changed':
      return `Changed ${member}’s role from ${String(d.from ?? '?')} to ${String(d.to ?? '?')}.`;
    case 'member_removed':
      return `Removed ${member} (${roleWords(d.role).replace(/^an? /, '')}) from the team${disconnected(d.grantsRevoked)}.`;
    case 'member_left':
      return `Left the team${disconnected(d.grantsRevoked)}.`;
    default: {
      const words = row.kind.replaceAll('_', ' ');
      return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
    }
  }
}

/** "a", "a and b", "a, b and c". */
function listWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A task's repeated reads after the minute's first, counted in one row (src/audit/repeated-reads.ts). */
function repeatedWords(d: Record<string, unknown>): string {
  return typeof d.reads === 'number' ? ` ${plural(d.reads, 'more time', 'more times')} that minute` : '';
}

/** A call's outcome after its name: nothing for a success. */
function callStatusWords(status: string | null): string {
  return status === 'ok' || status === null ? '' : ` (${statusWords(status).toLowerCase()})`;
}
