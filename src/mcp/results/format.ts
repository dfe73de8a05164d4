/** Small formatting helpers for the markdown results: numbers, dates, lists. */

// Built once: Number#toLocaleString builds a new Intl.NumberFormat on every call, which showed in the
// proxy path's profile (the same output, by ECMA-402 §19.2.1).
const INTEGER = new Intl.NumberFormat('en-US');
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function num(value: unknown): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) return '?';
  if (!Number.isInteger(n)) return DECIMAL.format(n);
  // Integers are written with thousands separators by hand, as en-US does (-0 aside, which it writes
  // "-0"): formatting through Intl costs a result of some 40 numbers tens of microseconds.
  return Number.isSafeInteger(n) && !Object.is(n, -0) ? grouped(n) : INTEGER.format(n);
}

/** A safe integer with a comma every three digits: 24017 → "24,017". */
function grouped(n: number): string {
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** A search's `status_percentage` (number or numeric string) as a number 0–100. */
export function percentOf(value: unknown, fallback = 0): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : fallback;
}

/** An ISO timestamp as `2026-11-27 07:19` (UTC as upstream writes it); anything else as it is. */
/**
 * A moment as `2026-12-02 00:00 UTC`: converted to UTC when the timestamp carries an offset, taken as
 * UTC when it carries none (upstream writes UTC); anything else as it is. Schedules are set in a
 * time zone of their own, so an unmarked time would be misread.
 */
export function utcMinute(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? new Date(text) : null;
  const at = zoned && !Number.isNaN(zoned.getTime()) ? zoned.toISOString() : text;
  const shown = minute(at);
  return shown === minute(text) && !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text) ? shown : `${shown} UTC`;
}

export function minute(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(text);
  return m ? `${m[1]} ${m[2]}` : text || '—';
}

/**
 * A markdown table (GFM): a cell's pipes escaped and its whitespace collapsed, so a value can neither
 * add a column nor end its row; an empty cell shows `—`.
 */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (v: string) => (v === '' ? '—' : v.replace(/\s+/g, ' ').replace(/\|/g, '\\|'));
  return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`).join('\n');
}

/** A percentage from a fraction (0.13 → "13%"). */
export function pct(fraction: unknown): string {
  const n = Number(fraction);
  return Number.isFinite(n) ? `${Math.round(n * 100)}%` : '?';
}

/** The date part of an ISO-ish timestamp (`2026-11-23T11:07:29`, `2026-11-23 11:07:29`). */
export function day(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  return /^\d{4}-\d{2}-\d{2}/.exec(text)?.[0] ?? (text || '?');
}

/** `{a: 3, b: 1}` → "a 3, b 1", largest first, at most `max` entries. */
export function counts(map: unknown, max = 5): string {
  if (!map || typeof map !== 'object') return '';
  return Object.entries(map as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'number')
    .sort((a, b) => (b[1] as number) - (a[1] as number))
    .slice(0, max)
    .map(([k, v]) => `${k} ${num(v)}`)
    .join(', ');
}

/** A JSON object: not null, not an array (the one such guard of src/mcp/, wire checks included). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A copy without the keys whose value is null or undefined (output schemas say "optional", not "or null"). */
export function withoutNulls<T extends Record<string, unknown>>(record: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

/** "1 post", "3 posts". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${num(n)} ${n === 1 ? word : many}`;
}

/**
 * A deep copy without null values in objects (array items stay): `structuredContent` leaves an absent
 * value out instead of sending null, so output schemas say "optional" and never `[X, "null"]`.
 */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const kept = dropNulls(item);
      if (out === null && kept !== item) out = value.slice(0, i);
      out?.push(kept);
    }
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  // Copied only from the first key that changes: a subtree without nulls is shared, not rebuilt (a
  // result is mostly such subtrees; nothing writes to a result once built, and the token budget trims a clone).
  const keys = Object.keys(value);
  let out: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = value[k];
    const kept = v === null || v === undefined ? DROPPED : dropNulls(v);
    if (out === null && (kept !== v || k === '__proto__')) {
      out = {};
      for (let j = 0; j < i; j++) {
        const before = keys[j] as string;
        out[before] = value[before];
      }
    }
    if (out !== null && kept !== DROPPED) out[k] = kept;
  }
  return out ?? value;
}

const DROPPED = Symbol('dropped');
