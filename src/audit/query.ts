import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';
import { type AuditFilters, type AuditKey, type AuditPosition, timeRange } from './filters.js';

export const AUDIT_PAGE_SIZE = 50;
/** The most rows one export returns (newest first); narrow the filters for more. */
export const AUDIT_EXPORT_MAX = 50_000;
/**
 * Rows an export reads per query: it is written out page by page, never held whole. The first page
 * is small, so the download starts at once.
 */
const EXPORT_FIRST_PAGE = 100;
const EXPORT_PAGE = 1_000;

/** Account events that name no workspace, shown in a team's trail for its current members. */
const MEMBER_ACCOUNT_EVENTS = ['sign_in', 'signed_out_everywhere'];

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

type Event = Omit<AuditRow, 'userEmail' | 'clientName'>;
type Direction = 'older' | 'newer';

/** One keyset read: up to `limit` rows past `key` (from the start when null), in `direction`. */
export interface TrailRead {
  direction: Direction;
  key: AuditKey | null;
  limit: number;
}

/** Rows past `key` in the direction read: a row-value comparison, an index range on both engines. */
function past(db: Store, direction: Direction, key: AuditKey): SQL {
  const { auditEvents: a } = db.t;
  return direction === 'older'
    ? sql`(${a.at}, ${a.id}) < (${key.at}, ${key.id})`
    : sql`(${a.at}, ${a.id}) > (${key.at}, ${key.id})`;
}

function ordered(db: Store, direction: Direction) {
  const { auditEvents: a } = db.t;
  return direction === 'older' ? [desc(a.at), desc(a.id)] : [asc(a.at), asc(a.id)];
}

const columns = (db: Store) => {
  const { auditEvents: a } = db.t;
  return {
    id: a.id,
    at: a.at,
    kind: a.kind,
    userId: a.userId,
    clientId: a.clientId,
    tool: a.tool,
    status: a.status,
    durationMs: a.durationMs,
    detail: a.detail,
  };
};

function common(db: Store, f: AuditFilters, direction: Direction, key: AuditKey | null): (SQL | undefined)[] {
  const { auditEvents: a } = db.t;
  const range = timeRange(f);
  return [
    f.userId ? eq(a.userId, f.userId) : undefined,
    range.from === null ? undefined : gte(a.at, range.from),
    range.to === null ? undefined : lt(a.at, range.to),
    key ? past(db, direction, key) : undefined,
  ];
}

/**
 * The workspace's own events: one index range, (workspace_id, at, id) or the filter's
 * (workspace_id, kind | tool, at, id), or (user_id, workspace_id, at, id) for one member.
 */
export function workspaceEvents(db: Store, workspaceId: string, f: AuditFilters, read: TrailRead) {
  const { direction, key, limit } = read;
  const { auditEvents: a } = db.t;
  return db.orm
    .select(columns(db))
    .from(a)
    .where(
      and(
        eq(a.workspaceId, workspaceId),
        f.kind ? eq(a.kind, f.kind) : undefined,
        f.tool ? eq(a.tool, f.tool) : undefined,
        ...common(db, f, direction, key),
      ),
    )
    .orderBy(...ordered(db, direction))
    .limit(limit);
}

/**
 * The current members' account events (sign-ins and the like name no workspace): for each member a
 * range of (user_id, workspace_id IS NULL, at, id), so a tiny team never reads everyone's sign-ins.
 * Null when the filters exclude them. `bound`: rows past it cannot make the page (the workspace's own
 * rows already fill it), so a busy team reads only the few minutes its page spans.
 */
export function memberAccountEvents(
  db: Store,
  workspaceId: string,
  f: AuditFilters,
  read: TrailRead,
  bound: AuditKey | null = null,
) {
  const { direction, key, limit } = read;
  const kinds = f.kind ? MEMBER_ACCOUNT_EVENTS.filter((k) => k === f.kind) : MEMBER_ACCOUNT_EVENTS;
  if (f.tool || kinds.length === 0) return null;
  const { auditEvents: a, workspaceMembers: m } = db.t;
  // The members drive the join (CROSS JOIN keeps SQLite from reordering it: with its averaged
  // statistics, "workspace_id IS NULL" looks as selective as one workspace and it would read every
  // account event in time order instead); PostgreSQL orders the join by its own statistics.
  return db.orm
    .select(columns(db))
    .from(m)
    .crossJoin(a)
    .where(
      and(
        eq(m.workspaceId, workspaceId),
        eq(a.userId, m.userId),
        isNull(a.workspaceId),
        inArray(a.kind, kinds),
        ...common(db, f, direction, key),
        bound ? past(db, direction === 'older' ? 'newer' : 'older', bound) : undefined,
      ),
    )
    .orderBy(...ordered(db, direction))
    .limit(limit);
}

const before = (direction: Direction) => (x: AuditKey, y: AuditKey) =>
  (direction === 'older' ? -1 : 1) * (x.at - y.at || x.id - y.id);

/** Up to `limit` events of the trail past `key`, in the direction read: both parts merged. */
async function trail(db: Store, workspaceId: string, f: AuditFilters, read: TrailRead): Promise<Event[]> {
  const own: Event[] = await workspaceEvents(db, workspaceId, f, read);
  const bound = own.length === read.limit ? (own.at(-1) as Event) : null;
  const accounts = memberAccountEvents(db, workspaceId, f, read, bound);
  const theirs: Event[] = accounts ? await accounts : [];
  return theirs.length ? [...own, ...theirs].sort(before(read.direction)).slice(0, read.limit) : own;
}

/**
 * The page's people by email and apps by name: lookups by key for at most a page of ids (a third, by
 * client id, only when an id names no registered client).
 */
async function named(db: Store, rows: Event[]): Promise<AuditRow[]> {
  const { users, oauthClients } = db.t;
  const userIds = [...new Set(rows.flatMap((r) => (r.userId ? [r.userId] : [])))];
  const clientIds = [...new Set(rows.flatMap((r) => (r.clientId ? [r.clientId] : [])))];
  const emails = new Map(
    userIds.length
      ? (
          await db.orm
            .select({ id: users.id, email: users.email })
            .from(users)
            .where(inArray(users.id, userIds))
        ).map((u) => [u.id, u.email])
      : [],
  );
  const names = new Map(
    clientIds.length
      ? (
          await db.orm
            .select({ id: oauthClients.id, name: oauthClients.clientName })
            .from(oauthClients)
            .where(inArray(oauthClients.id, clientIds))
        ).map((c) => [c.id, c.name])
      : [],
  );
  // An access token made for automation has no client row: it is named by its grant (one per token).
  const unnamed = clientIds.filter((id) => !names.has(id));
  if (unnamed.length) {
    const { oauthGrants: g } = db.t;
    const tokens = await db.orm
      .select({ id: g.clientId, name: g.name })
      .from(g)
      .where(and(inArray(g.clientId, unnamed), eq(g.kind, 'access_token')));
    for (const t of tokens) names.set(t.id, `Access token “${t.name ?? ''}”`);
  }
  return rows.map((r) => ({
    ...r,
    userEmail: r.userId ? (emails.get(r.userId) ?? null) : null,
    clientName: r.clientId ? (names.get(r.clientId) ?? null) : null,
  }));
}

export interface AuditPage {
  rows: AuditRow[];
  /** Where the "Older events" link starts, if older events may exist. */
  older: AuditKey | null;
  /** Where the "Newer events" link starts, if this is not the newest page. */
  newer: AuditKey | null;
}

/** One page of the workspace's trail, newest first, from `position` on. */
export async function queryAudit(
  db: Store,
  workspaceId: string,
  filters: AuditFilters,
  position: AuditPosition = null,
  pageSize = AUDIT_PAGE_SIZE,
): Promise<AuditPage> {
  const direction: Direction = position && 'newer' in position ? 'newer' : 'older';
  const key = position ? ('newer' in position ? position.newer : position.older) : null;
  const found = await trail(db, workspaceId, filters, { direction, key, limit: pageSize + 1 });
  const more = found.length > pageSize;
  const rows = await named(db, found.slice(0, pageSize));
  if (direction === 'newer') rows.reverse();
  const newest = rows[0] ?? null;
  const oldest = rows.at(-1) ?? null;
  if (direction === 'older')
    return { rows, older: more ? oldest : null, newer: key ? (newest ?? key) : null };
  return { rows, older: oldest ?? key, newer: more ? newest : null };
}

/**
 * Every matching row, newest first, up to AUDIT_EXPORT_MAX: page after page of keyset reads, each
 * handed out before the next is read (another request may run between two).
 */
export async function* exportPages(
  db: Store,
  workspaceId: string,
  filters: AuditFilters,
): AsyncGenerator<AuditRow[]> {
  let key: AuditKey | null = null;
  for (let left = AUDIT_EXPORT_MAX; left > 0; ) {
    const size = Math.min(key ? EXPORT_PAGE : EXPORT_FIRST_PAGE, left);
    const rows = await trail(db, workspaceId, filters, { direction: 'older', key, limit: size });
    if (rows.length) yield await named(db, rows);
    if (rows.length < size) return;
    left -= rows.length;
    key = rows.at(-1) as Event;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Every matching row (up to AUDIT_EXPORT_MAX), newest first, in one array. */
export async function exportAudit(
  db: Store,
  workspaceId: string,
  filters: AuditFilters,
): Promise<AuditRow[]> {
  const all: AuditRow[] = [];
  for await (const rows of exportPages(db, workspaceId, filters)) all.push(...rows);
  return all;
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
