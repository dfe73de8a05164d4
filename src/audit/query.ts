import { and, desc, eq, gt, gte, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';

export const AUDIT_PAGE_SIZE = 50;
/** The most rows one export returns (newest first); narrow the filters for more. */
export const AUDIT_EXPORT_MAX = 50_000;
const DAY_MS = 24 * 3600 * 1000;

/** Account events that name no workspace, shown in a team's trail for its current members. */
const MEMBER_ACCOUNT_EVENTS = ['sign_in', 'signed_out_everywhere'];

/** The kinds offered in the filter (any kind typed in the query string also works). */
export const AUDIT_KINDS = [
  'tool_call',
  'sign_in',
  'grant_created',
  'grant_revoked',
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
  page: number;
}

export interface AuditFilterErrors {
  kind?: string;
  tool?: string;
  from?: string;
  to?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NAME = /^[a-z0-9_]{1,64}$/;

function dayStart(date: string): number | null {
  if (!DATE.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? null : ms;
}

/** Reads filters from a query string; bad values are reported per field and ignored. */
export function parseAuditFilters(query: Record<string, string | undefined>): {
  filters: AuditFilters;
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
  const pageText = text('page');
  const page = pageText && /^\d{1,6}$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1;
  return { filters: { kind, userId: text('member'), tool, from, to, page }, errors };
}

export interface AuditRow {
  id: number;
  at: number;
  kind: string;
  userId: string | null;
  userEmail: string | null;
  clientId: string | null;
  clientName: string | null;
  tool: string | null;
  status: string | null;
  durationMs: number | null;
  detail: string | null;
}

function where(db: Store, workspaceId: string, f: AuditFilters): SQL {
  const { auditEvents, workspaceMembers } = db.t;
  const members = sql`(SELECT ${workspaceMembers.userId} FROM ${workspaceMembers} WHERE ${workspaceMembers.workspaceId} = ${workspaceId})`;
  const conditions: (SQL | undefined)[] = [
    or(
      eq(auditEvents.workspaceId, workspaceId),
      and(
        isNull(auditEvents.workspaceId),
        inArray(auditEvents.kind, MEMBER_ACCOUNT_EVENTS),
        sql`${auditEvents.userId} IN ${members}`,
      ),
    ),
  ];
  if (f.kind) conditions.push(eq(auditEvents.kind, f.kind));
  if (f.userId) conditions.push(eq(auditEvents.userId, f.userId));
  if (f.tool) conditions.push(eq(auditEvents.tool, f.tool));
  const from = f.from ? dayStart(f.from) : null;
  const to = f.to ? dayStart(f.to) : null;
  if (from !== null) conditions.push(gte(auditEvents.at, from));
  if (to !== null) conditions.push(lt(auditEvents.at, to + DAY_MS));
  return and(...conditions) as SQL;
}

function select(db: Store) {
  const { auditEvents, users, oauthClients } = db.t;
  return db.orm
    .select({
      id: auditEvents.id,
      at: auditEvents.at,
      kind: auditEvents.kind,
      userId: auditEvents.userId,
      userEmail: users.email,
      clientId: auditEvents.clientId,
      clientName: oauthClients.clientName,
      tool: auditEvents.tool,
      status: auditEvents.status,
      durationMs: auditEvents.durationMs,
      detail: auditEvents.detail,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.userId))
    .leftJoin(oauthClients, eq(oauthClients.id, auditEvents.clientId));
}

/** One page of the workspace's trail, newest first. */
export async function queryAudit(
  db: Store,
  workspaceId: string,
  filters: AuditFilters,
  pageSize = AUDIT_PAGE_SIZE,
): Promise<{ rows: AuditRow[]; hasMore: boolean }> {
  const { auditEvents } = db.t;
  const rows = await select(db)
    .where(where(db, workspaceId, filters))
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(pageSize + 1)
    .offset((filters.page - 1) * pageSize);
  return { rows: rows.slice(0, pageSize), hasMore: rows.length > pageSize };
}

/** Every matching row (up to AUDIT_EXPORT_MAX), newest first, for CSV or JSON export. */
export function exportAudit(db: Store, workspaceId: string, filters: AuditFilters): Promise<AuditRow[]> {
  const { auditEvents } = db.t;
  return select(db)
    .where(where(db, workspaceId, filters))
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(AUDIT_EXPORT_MAX);
}

const CSV_COLUMNS: (keyof AuditRow)[] = [
  'id',
  'at',
  'kind',
  'userId',
  'userEmail',
  'clientId',
  'clientName',
  'tool',
  'status',
  'durationMs',
  'detail',
];

/**
 * RFC 4180 CSV with an ISO time column. Cells starting with = + - @ are prefixed with ' so a
 * spreadsheet never runs them as formulas (client names and emails are user-controlled).
 */
export function auditCsv(rows: AuditRow[]): string {
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return '';
    let s = String(value);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const header = ['time', ...CSV_COLUMNS].join(',');
  const lines = rows.map((r) =>
    [new Date(r.at).toISOString(), ...CSV_COLUMNS.map((k) => r[k])].map(cell).join(','),
  );
  return `${[header, ...lines].join('\r\n')}\r\n`;
}

/** JSON export: the rows with ISO times and detail parsed back into objects. */
export function auditJson(rows: AuditRow[]) {
  return rows.map((r) => {
    let detail: unknown = null;
    if (r.detail) {
      try {
        detail = JSON.parse(r.detail);
      } catch {
        detail = r.detail;
      }
    }
    return { ...r, time: new Date(r.at).toISOString(), detail };
  });
}

/** Whether an event of this kind was recorded for this person, app and workspace since `since`. */
export async function hasRecentEvent(
  db: Store,
  event: { kind: string; userId: string; clientId: string; workspaceId: string },
  since: number,
): Promise<boolean> {
  const { auditEvents } = db.t;
  const row = await first(
    db.orm
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.userId, event.userId),
          gt(auditEvents.at, since),
          eq(auditEvents.kind, event.kind),
          eq(auditEvents.clientId, event.clientId),
          eq(auditEvents.workspaceId, event.workspaceId),
        ),
      )
      .limit(1),
  );
  return row !== undefined;
}
