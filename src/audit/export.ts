import type { Store } from '../db/store/index.js';
import type { AuditFilters } from './filters.js';
import { type AuditRow, exportPages } from './query.js';

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
 * RFC 4180 CSV cell. Cells starting with = + - @ are prefixed with ' so a spreadsheet never runs them
 * as formulas (client names and emails are user-controlled).
 */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CSV_HEADER = `${['time', ...CSV_COLUMNS].join(',')}\r\n`;

function csvLine(r: AuditRow): string {
  return `${[new Date(r.at).toISOString(), ...CSV_COLUMNS.map((k) => r[k])].map(cell).join(',')}\r\n`;
}

/** RFC 4180 CSV with an ISO time column. */
export function auditCsv(rows: AuditRow[]): string {
  return CSV_HEADER + rows.map(csvLine).join('');
}

/** One event of the JSON export: ISO time, detail parsed back into an object. */
function jsonEvent(r: AuditRow) {
  let detail: unknown = null;
  if (r.detail) {
    try {
      detail = JSON.parse(r.detail);
    } catch {
      detail = r.detail;
    }
  }
  return { ...r, time: new Date(r.at).toISOString(), detail };
}

/** JSON export: the rows with ISO times and detail parsed back into objects. */
export function auditJson(rows: AuditRow[]) {
  return rows.map(jsonEvent);
}

/**
 * The export as a stream of text, written as its pages are read (newest first): the first bytes
 * leave before the last row is read, and a long trail never sits in memory.
 */
export function auditExportStream(
  db: Store,
  workspace: { id: string; name: string },
  filters: AuditFilters,
  format: 'csv' | 'json',
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = exportPages(db, workspace.id, filters);
  let started = false;
  let wroteEvent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The head goes out with the first page: the first bytes sent are rows, not a promise of them.
      const head = started
        ? ''
        : format === 'csv'
          ? CSV_HEADER
          : `{"workspace":${JSON.stringify(workspace)},"filters":${JSON.stringify(filters)},"events":[`;
      started = true;
      const next = await pages.next();
      if (next.done) {
        controller.enqueue(encoder.encode(format === 'json' ? `${head}]}` : head));
        controller.close();
        return;
      }
      const body =
        format === 'csv'
          ? next.value.map(csvLine).join('')
          : next.value
              .map((r) => {
                const json = JSON.stringify(jsonEvent(r));
                const line = wroteEvent ? `,${json}` : json;
                wroteEvent = true;
                return line;
              })
              .join('');
      const text = head + body;
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}
