/** What a team's audit trail is filtered by, and where a page starts, read from a query string. */

export const DAY_MS = 24 * 3600 * 1000;

/** The kinds offered in the filter (any kind typed in the query string also works). */
export const AUDIT_KINDS = [
  'tool_call',
  'sign_in',
  'grant_created',
  'grant_revoked',
  'access_token_created',
  'access_token_revoked',
  'credential_linked',
  'credential_removed',
  'team_created',
  'team_renamed',
  'invite_created',
  'invite_revoked',
  'invite_accepted',
  'member_role_changed',
  'member_policy_changed',
  'member_policy_refused',
  'team_settings_changed',
  'webhook_changed',
  'member_removed',
  'member_left',
  'signed_out_everywhere',
  'account_created',
] as const;

export interface AuditFilters {
  kind: string | null;
  userId: string | null;
  tool: string | null;
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from: string | null;
  to: string | null;
}

/** An event's place in the trail: newest first is (at, id) descending. */
export interface AuditKey {
  at: number;
  id: number;
}

/**
 * Where a page starts: the events older than a key (the "Older events" link), newer than one ("Newer
 * events"), or the newest (null). A cursor rather than a page number: a page is then a range of an
 * index read from the key on, so page 1,000 costs what page 1 does, and new events arriving between
 * two clicks neither repeat nor skip rows.
 */
export type AuditPosition = { older: AuditKey } | { newer: AuditKey } | null;

export interface AuditFilterErrors {
  kind?: string;
  tool?: string;
  from?: string;
  to?: string;
  position?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NAME = /^[a-z0-9_]{1,64}$/;
const KEY = /^(\d{1,15})\.(\d{1,15})$/;

export function dayStart(date: string): number | null {
  if (!DATE.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? null : ms;
}

/** A key as it appears in a link: `<at>.<id>`. */
export function keyParam(key: AuditKey): string {
  return `${key.at}.${key.id}`;
}

function parseKey(text: string): AuditKey | null {
  const m = KEY.exec(text);
  return m ? { at: Number(m[1]), id: Number(m[2]) } : null;
}

/**
 * Reads filters and the page's position from a query string; bad values are reported per field and
 * ignored. `legacyPage` is a page number from a link made before pages were cursors (`page=N`).
 */
export function parseAuditFilters(query: Record<string, string | undefined>): {
  filters: AuditFilters;
  position: AuditPosition;
  legacyPage: number | null;
  errors: AuditFilterErrors;
} {
  const errors: AuditFilterErrors = {};
  const text = (key: string) => {
    const v = query[key]?.trim();
    return v ? v.slice(0, 100) : null;
  };
  let kind = text('kind');
  if (kind && !NAME.test(kind)) {
    errors.kind = 'A kind is lower-case letters, digits and underscores.';
    kind = null;
  }
  let tool = text('tool');
  if (tool && !NAME.test(tool)) {
    errors.tool = 'A tool name is lower-case letters, digits and underscores, like submit_keyword_search.';
    tool = null;
  }
  let from = text('from');
  if (from && dayStart(from) === null) {
    errors.from = 'Enter a date as YYYY-MM-DD.';
    from = null;
  }
  let to = text('to');
  if (to && dayStart(to) === null) {
    errors.to = 'Enter a date as YYYY-MM-DD.';
    to = null;
  }
  if (from && to && (dayStart(from) ?? 0) > (dayStart(to) ?? 0)) {
    errors.to = 'The end date is before the start date.';
    to = null;
  }
  let position: AuditPosition = null;
  const before = text('before');
  const after = text('after');
  const key = parseKey(before ?? after ?? '');
  if ((before || after) && !key) {
    errors.position = 'This page link is damaged: the newest events are shown instead.';
  } else if (key) {
    position = before ? { older: key } : { newer: key };
  }
  const pageText = text('page');
  const legacyPage = pageText && /^\d{1,6}$/.test(pageText) ? Number(pageText) : null;
  return { filters: { kind, userId: text('member'), tool, from, to }, position, legacyPage, errors };
}

/** The inclusive time range of the filters, in ms: [from, to). */
export function timeRange(f: AuditFilters): { from: number | null; to: number | null } {
  const from = f.from ? dayStart(f.from) : null;
  const to = f.to ? dayStart(f.to) : null;
  return { from, to: to === null ? null : to + DAY_MS };
}
