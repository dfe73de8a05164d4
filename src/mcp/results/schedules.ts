import { clip, fenced, typedFence, WRITTEN_FROM_POSTS_NOTICE } from './fence.js';
import { isRecord, utcMinute as minute, num, plural, table } from './format.js';
import type { ResultOutput as ToolOutput } from './result-output.js';

/**
 * Agent-run schedules for the model, in words and compact tables: what a schedule does and when, its
 * runs; `structuredContent` keeps every field upstream sent. A schedule run's report preview is written
 * by upstream from posts, so previews sit inside the untrusted-content fence; a schedule's name,
 * question and email address were typed by a person, so they sit inside it too (./fence.ts).
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "daily at 09:00 Europe/London", "weekly on Monday at 08:30 UTC", "monthly on day 31 (…)", "once". */
export function cadence(s: Record<string, unknown>): string {
  const at = `at ${String(s.recurrence_time ?? '?')} ${String(s.recurrence_timezone ?? '')}`.trim();
  switch (s.recurrence_type) {
    case 'daily':
      return `daily ${at}`;
    case 'weekly':
      return `weekly on ${DAYS[Number(s.recurrence_day_of_week)] ?? '?'} ${at}`;
    case 'monthly':
      return `monthly on day ${String(s.recurrence_day_of_month ?? '?')} (the month's last day when shorter) ${at}`;
    case 'once':
      return `once ${at}`;
    default:
      return `${String(s.recurrence_type ?? '?')} ${at}`;
  }
}

/** When it runs next, or why it does not. */
function next(s: Record<string, unknown>): string {
  if (s.paused === true)
    return `paused${s.paused_at ? ` since ${minute(s.paused_at)}` : ''}, no runs until resumed`;
  return s.next_run_at ? `next run ${minute(s.next_run_at)}` : 'no run ahead (finished)';
}

/** The run settings each occurrence uses, and who is told. */
function settings(s: Record<string, unknown>): string {
  const parts = [
    [s.mode, s.time_window].filter((x) => typeof x === 'string').join(', '),
    typeof s.available_credits === 'number'
      ? `a budget of ${plural(s.available_credits, 'credit')} per run`
      : '',
    Array.isArray(s.platforms) ? `platforms ${s.platforms.join(', ')}` : '',
    typeof s.max_post === 'number' ? `${num(s.max_post)} posts per platform` : '',
  ].filter(Boolean);
  const told = [
    s.notify_email ? 'email' : '',
    s.notify_slack_webhook || s.notify_slack_channel_id || s.has_slack_bot_token === true ? 'Slack' : '',
  ].filter(Boolean);
  return `${parts.join('; ')}${told.length ? `; notifies ${told.join(' and ')}` : ''}`;
}

/** What a person typed into the schedule, for the fence. */
function typedLines(s: Record<string, unknown>): string[] {
  return [
    s.name ? `Name: ${clip(s.name, 120)}` : '',
    `Question: ${clip(s.question ?? '', 300)}`,
    s.notify_email ? `Email: ${clip(s.notify_email, 120)}` : '',
  ].filter(Boolean);
}

function scheduleLine(s: Record<string, unknown>): string {
  const span = [
    s.starts_at ? `from ${minute(s.starts_at)}` : '',
    s.ends_at ? `until ${minute(s.ends_at)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `Runs ${cadence(s)}${span ? `, ${span}` : ''}; ${next(s)}. Each run: ${settings(s)}.`;
}

function runRows(runs: readonly Record<string, unknown>[]) {
  return runs.map((r) => {
    const run = isRecord(r.agent_run) ? r.agent_run : {};
    return [
      minute(r.scheduled_for ?? r.created_at),
      [r.status, r.error ? clip(r.error, 80) : null].filter(Boolean).join(': '),
      typeof r.credits_used === 'number' ? String(r.credits_used) : '',
      typeof run.confidence_level === 'string' ? run.confidence_level : '',
      String(r.agent_run_id ?? run.id ?? ''),
    ];
  });
}

const RUN_HEAD = ['scheduled for', 'status', 'credits spent', 'confidence', 'agent run id'];

/** Report previews of schedule runs, fenced: upstream wrote them from posts. */
function previews(runs: readonly Record<string, unknown>[]): string {
  const lines = runs.flatMap((r) => {
    const run = isRecord(r.agent_run) ? r.agent_run : {};
    const preview = typeof run.result_preview === 'string' ? run.result_preview : '';
    return preview ? [`${minute(r.scheduled_for ?? r.created_at)}: ${clip(preview, 300)}`] : [];
  });
  return fenced(lines, WRITTEN_FROM_POSTS_NOTICE);
}

/** One schedule, after reading, creating, changing, pausing or resuming it. */
export function scheduleResult(schedule: Record<string, unknown>, verb: string): ToolOutput {
  const lines = [
    `Schedule ${String(schedule.id)} ${verb}. ${scheduleLine(schedule)}`,
    typedFence(typedLines(schedule)),
  ];
  const recent = Array.isArray(schedule.recent_runs) ? schedule.recent_runs.filter(isRecord) : null;
  if (recent?.length) {
    lines.push('', `Its ${plural(recent.length, 'latest run')}:`, table(RUN_HEAD, runRows(recent)));
    const fence = previews(recent);
    if (fence) lines.push('', 'Report previews:', fence);
  } else if (recent) lines.push('It has not run yet.');
  return { data: schedule, text: lines.join('\n'), untrusted: true };
}

/** A page of schedules. */
export function scheduleListResult(data: Record<string, unknown>, schedules: readonly unknown[]): ToolOutput {
  const rows = schedules.filter(isRecord);
  const total = typeof data.total === 'number' ? data.total : rows.length;
  const offset = typeof data.offset === 'number' ? data.offset : 0;
  if (rows.length === 0)
    return {
      data,
      text: `No schedules${offset ? ` from offset ${num(offset)}` : ''} (${num(total)} in all).`,
    };
  const more = offset + rows.length < total ? ` Next: offset ${num(offset + rows.length)}.` : '';
  const body = rows.map((s) => [
    String(s.id),
    clip(s.name ?? '', 60),
    cadence(s),
    s.paused === true ? 'paused' : s.next_run_at ? minute(s.next_run_at) : 'none ahead',
    typeof s.available_credits === 'number' ? String(s.available_credits) : '',
    clip(s.question ?? '', 120),
  ]);
  return {
    data,
    text: [
      `Schedules ${num(offset + 1)}–${num(offset + rows.length)} of ${num(total)}; get_agent_schedule reads one with its latest runs.${more}`,
      '',
      typedFence([table(['schedule id', 'name', 'when', 'next run', 'budget per run', 'question'], body)]),
    ].join('\n'),
    untrusted: true,
  };
}

/** A page of one schedule's runs, with their report previews fenced. */
export function scheduleRunsResult(
  scheduleId: string,
  data: Record<string, unknown>,
  runs: readonly unknown[],
): ToolOutput {
  const rows = runs.filter(isRecord);
  const total = typeof data.total === 'number' ? data.total : rows.length;
  const offset = typeof data.offset === 'number' ? data.offset : 0;
  if (rows.length === 0)
    return {
      data,
      text: `Schedule ${scheduleId} has no runs${offset ? ` from offset ${num(offset)}` : ''} (${num(total)} in all).`,
    };
  const more = offset + rows.length < total ? ` Next: offset ${num(offset + rows.length)}.` : '';
  const lines = [
    `Runs ${num(offset + 1)}–${num(offset + rows.length)} of ${num(total)} of schedule ${scheduleId}; get_agent_run reads a run's report.${more}`,
    '',
    table(RUN_HEAD, runRows(rows)),
  ];
  const fence = previews(rows);
  if (fence) lines.push('', 'Report previews:', fence);
  return { data, text: lines.join('\n'), untrusted: true };
}
