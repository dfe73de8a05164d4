import { describe, expect, it } from 'vitest';
import type { ToolUsageRow } from '../../src/audit/tool-usage.js';
import {
  CHART_SERIES_MAX,
  dailyCallsByMember,
  niceMax,
  periodDays,
} from '../../src/web/teams/usage/series.js';

const row = (
  day: string,
  userId: string | null,
  calls: number,
  tool = 'get_keyword_search',
): ToolUsageRow => ({
  day,
  userId,
  userEmail: userId ? `${userId}@example.com` : null,
  tool,
  calls,
  failed: 0,
});

describe('the usage chart’s figures', () => {
  it('the period is every UTC day up to today, oldest first, as toolCallsByDay counts them', () => {
    expect(periodDays(3, Date.UTC(2026, 0, 2, 23, 59))).toEqual(['2025-12-31', '2026-01-01', '2026-01-02']);
  });

  it('sums a member’s tools per day, fills days without calls with 0, busiest member first', () => {
    const days = ['2026-01-01', '2026-01-02', '2026-01-03'];
    const series = dailyCallsByMember(
      [
        row('2026-01-01', 'ann', 2),
        row('2026-01-01', 'ann', 3, 'get_agent_run'),
        row('2026-01-03', 'bob', 9),
        row('2025-12-31', 'bob', 100),
        row('2026-01-02', null, 1),
      ],
      days,
    );
    expect(series.members).toEqual([
      { label: 'bob@example.com', perDay: [0, 0, 9], total: 9 },
      { label: 'ann@example.com', perDay: [5, 0, 0], total: 5 },
      { label: 'A former member', perDay: [0, 1, 0], total: 1 },
    ]);
    expect(series.totals).toEqual([5, 1, 9]);
  });

  it(`draws at most ${CHART_SERIES_MAX} members in their own colour; the rest share one`, () => {
    const rows = Array.from({ length: CHART_SERIES_MAX + 3 }, (_, i) => row('2026-01-01', `m${i}`, 20 - i));
    const series = dailyCallsByMember(rows, ['2026-01-01']);
    expect(series.members).toHaveLength(CHART_SERIES_MAX + 1);
    expect(series.members.at(-1)).toEqual({ label: '3 other members', perDay: [14 + 13 + 12], total: 39 });
    expect(series.totals).toEqual([rows.reduce((n, r) => n + r.calls, 0)]);
  });

  it('the axis ends on a round number at or above the busiest day', () => {
    expect([0, 3, 5, 9, 10, 11, 26, 73, 140, 999].map(niceMax)).toEqual([
      4, 4, 5, 10, 10, 20, 50, 100, 200, 1000,
    ]);
  });
});
