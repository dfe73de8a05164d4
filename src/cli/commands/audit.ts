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

/** Writes matching events oldest first, streaming rows so a long trail never sits in memory. */
export async function auditExportCommand(io: CliIo, options: AuditExportOptions): Promise<void> {
  const format = options.format.toLowerCase();
  if (format !== 'csv' && format !== 'json') {
    throw new CliError(`--format: expected csv or json (got ${JSON.stringify(options.format)})`);
  }
  const where: string[] = [];
  const params: Array<string | number> = [];
  const since = options.since === undefined ? undefined : parseInstant('--since', options.since);
  const until = options.until === undefined ? undefined : parseInstant('--until', options.until);
  if (since !== undefined && until !== undefined && until <= since) {
    throw new CliError('--until must be later than --since');
  }
  const filter = (clause: string, value: string | number | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    params.push(value);
  };
  filter('at >= ?', since);
  filter('at < ?', until);
  filter('workspace_id = ?', options.workspace);

  await withDatabase(io, async (db) => {
    // better-sqlite3's iterate() streams rows one at a time (drizzle has no cursor for it).
    const rows = db.$client
      .prepare(
        `SELECT id, at, kind, workspace_id, user_id, client_id, tool, status, duration_ms, detail
         FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at, id`,
      )
      .iterate(...params) as IterableIterator<AuditRow>;
    const out = io.stdout;
    const write = async (text: string) => {
      if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
    };
    if (format === 'csv') await write(`${COLUMNS.join(',')}\r\n`);
    else await write('[');
    let first = true;
    for (const e of rows) {
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
