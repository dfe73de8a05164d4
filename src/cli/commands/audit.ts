import { and, asc, eq, gt, gte, lt, or } from 'drizzle-orm';
import type { Store } from '../../db/store/index.js';
import { CliError, type CliIo, withDatabase } from '../context.js';

export interface AuditExportOptions {
  format: string;
  since?: string;
  until?: string;
  workspace?: string;
}

interface AuditRow {
  id: number;
  at: number;
  kind: string;
  workspace_id: string | null;
  user_id: string | null;
  client_id: string | null;
  tool: string | null;
  status: string | null;
  duration_ms: number | null;
  detail: string | null;
}

const COLUMNS = [
  'id',
  'at',
  'kind',
  'workspace_id',
  'user_id',
  'client_id',
  'tool',
  'status',
  'duration_ms',
  'detail',
] as const;

/** Milliseconds for an ISO 8601 date or date-time (a bare date is midnight UTC). */
export function parseInstant(option: string, value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new CliError(
      `${option}: expected a date like 2026-01-31 or 2026-01-31T12:00:00Z (got ${JSON.stringify(value)})`,
    );
  }
  return ms;
}

/**
 * A CSV cell (RFC 4180 quoting). Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR
 * first) is prefixed with a quote (OWASP CSV injection): client ids and details come from clients.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows read per query: the export streams page by page, so a long trail never sits in memory. */
const PAGE = 1_000;

/** Writes matching events oldest first, a page at a time (keyset pages: no OFFSET scans, either engine). */
export async function auditExportCommand(io: CliIo, options: AuditExportOptions): Promise<void> {
  const format = options.format.toLowerCase();
  if (format !== 'csv' && format !== 'json') {
    throw new CliError(`--format: expected csv or json (got ${JSON.stringify(options.format)})`);
  }
  const since = options.since === undefined ? undefined : parseInstant('--since', options.since);
  const until = options.until === undefined ? undefined : parseInstant('--until', options.until);
  if (since !== undefined && until !== undefined && until <= since) {
    throw new CliError('--until must be later than --since');
  }

  await withDatabase(io, async (db) => {
    const out = io.stdout;
    const write = async (text: string) => {
      if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
    };
    if (format === 'csv') await write(`${COLUMNS.join(',')}\r\n`);
    else await write('[');
    let first = true;
    for await (const e of auditRows(db, { since, until, workspace: options.workspace })) {
      const at = new Date(e.at).toISOString();
      if (format === 'csv') {
        const cells = [
          e.id,
          at,
          e.kind,
          e.workspace_id,
          e.user_id,
          e.client_id,
          e.tool,
          e.status,
          e.duration_ms,
          e.detail,
        ];
        await write(`${cells.map(csvCell).join(',')}\r\n`);
      } else {
        const row = {
          id: e.id,
          at,
          kind: e.kind,
          workspaceId: e.workspace_id,
          userId: e.user_id,
          clientId: e.client_id,
          tool: e.tool,
          status: e.status,
          durationMs: e.duration_ms,
          detail: e.detail === null ? null : safeJson(e.detail),
        };
        await write(`${first ? '\n' : ',\n'}${JSON.stringify(row)}`);
      }
      first = false;
    }
    if (format === 'json') await write(first ? ']\n' : '\n]\n');
  });
}

/** The matching rows ordered by (at, id), read in keyset pages of PAGE rows. */
async function* auditRows(
  db: Store,
  filter: { since: number | undefined; until: number | undefined; workspace: string | undefined },
): AsyncGenerator<AuditRow> {
  const { auditEvents: a } = db.t;
  const conditions = [
    filter.since === undefined ? undefined : gte(a.at, filter.since),
    filter.until === undefined ? undefined : lt(a.at, filter.until),
    filter.workspace === undefined ? undefined : eq(a.workspaceId, filter.workspace),
  ];
  let after: { at: number; id: number } | null = null;
  for (;;) {
    const rows: AuditRow[] = await db.orm
      .select({
        id: a.id,
        at: a.at,
        kind: a.kind,
        workspace_id: a.workspaceId,
        user_id: a.userId,
        client_id: a.clientId,
        tool: a.tool,
        status: a.status,
        duration_ms: a.durationMs,
        detail: a.detail,
      })
      .from(a)
      .where(
        and(
          ...conditions,
          after === null ? undefined : or(gt(a.at, after.at), and(eq(a.at, after.at), gt(a.id, after.id))),
        ),
      )
      .orderBy(asc(a.at), asc(a.id))
      .limit(PAGE);
    yield* rows;
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = { at: last.at, id: last.id };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
