import type { ToolUsageRow } from '../../../audit/tool-usage.js';

const DAY_MS = 24 * 3600 * 1000;
/** Members drawn in their own colour; the rest share one ("Other members"). */
export const CHART_SERIES_MAX = 6;

export interface MemberSeries {
  label: string;
  /** Calls on each day of `days`. */
  perDay: number[];
  total: number;
}

export interface DailySeries {
  /** Every UTC day of the period, oldest first (YYYY-MM-DD), calls or not. */
  days: string[];
  /** Busiest members first; at most CHART_SERIES_MAX, then one for everyone else. */
  members: MemberSeries[];
  /** Calls on each day, all members together. */
  totals: number[];
}

/** The UTC days of the last `count` days up to `now`'s, as toolCallsByDay counts them. */
export function periodDays(count: number, now = Date.now()): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: count }, (_, i) =>
    new Date(today - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** Tool calls per member per day, from the audit trail's per-day, member and tool counts. */
export function dailyCallsByMember(rows: ToolUsageRow[], days: string[]): DailySeries {
  const index = new Map(days.map((d, i) => [d, i]));
  const byMember = new Map<string, MemberSeries>();
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    const key = r.userId ?? '';
    const series = byMember.get(key) ?? {
      label: r.userEmail ?? 'A former member',
      perDay: days.map(() => 0),
      total: 0,
    };
    series.perDay[i] = (series.perDay[i] ?? 0) + r.calls;
    series.total += r.calls;
    byMember.set(key, series);
  }
  const ranked = [...byMember.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  const shown = ranked.slice(0, CHART_SERIES_MAX);
  const rest = ranked.slice(CHART_SERIES_MAX);
  if (rest.length) {
    shown.push({
      label: `${rest.length} other member${rest.length === 1 ? '' : 's'}`,
      perDay: days.map((_, i) => rest.reduce((n, s) => n + (s.perDay[i] ?? 0), 0)),
      total: rest.reduce((n, s) => n + s.total, 0),
    });
  }
  return {
    days,
    members: shown,
    totals: days.map((_, i) => shown.reduce((n, s) => n + (s.perDay[i] ?? 0), 0)),
  };
}

/** A round axis maximum at or above `value` (1, 2, 5 × 10ⁿ), so the gridline halves are whole-ish. */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}
