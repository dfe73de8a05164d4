import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { iso } from './clock.js';
import { RESULT_PREVIEW_CHARS, SCHEDULE_MAX_CATCHUP, type ScheduleRunStatus } from './constants.js';
import { createRun } from './state/runs.js';
import type { Store } from './state/store.js';
import type { RunRecord, ScheduleRecord, ScheduleRunRecord } from './state/types.js';
import type { JsonObject } from './synthetic/shapes.js';

/**
 * First occurrence of the schedule's cadence at or after `after` (and not before starts_at), in the
 * schedule's time zone; null when none remains (past ends_at, or a `once` that already ran).
 */
export function computeNextRun(s: ScheduleRecord, after: number): number | null {
  const [hour, minute] = s.recurrenceTime.split(':').map(Number) as [number, number];
  const from = Math.max(after, s.startsAt);
  let day = DateTime.fromMillis(from, { zone: s.recurrenceTimezone }).startOf('day');
  if (s.recurrenceType === 'once' && s.lastRunAt !== null) return null;
  // 370 days covers a yearly gap with room for time-zone edges; every cadence hits within it.
  for (let i = 0; i < 370; i++, day = day.plus({ days: 1 })) {
    let matches = false;
    switch (s.recurrenceType) {
      case 'daily':
      case 'once':
        matches = true;
        break;
      case 'weekly':
        matches = day.weekday % 7 === s.recurrenceDayOfWeek;
        break;
      case 'monthly': {
        // A day past the month's end runs on its last day.
        const want = Math.min(s.recurrenceDayOfMonth ?? 1, day.daysInMonth ?? 28);
        matches = day.day === want;
        break;
      }
    }
    if (!matches) continue;
    const at = day.set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
    if (at < from) continue;
    if (s.endsAt !== null && at > s.endsAt) return null;
    return at;
  }
  return null;
}

/**
 * Fires every occurrence that is due, creating the agent run and its schedule-run record, then keeps
 * the store's armed set in step with the schedule (a schedule with nothing left to fire leaves it).
 */
export function settleSchedule(store: Store, s: ScheduleRecord, now: number = store.now()): void {
  fireDue(store, s, now);
  trackSchedule(store, s);
}

/**
 * Puts the schedule in the store's armed set when it can fire (not paused, has a next occurrence, not
 * deleted) and takes it out otherwise. Called wherever next_run_at or paused may have changed.
 */
export function trackSchedule(store: Store, s: ScheduleRecord): void {
  if (!s.paused && s.nextRunAt !== null && store.schedules.get(s.id) === s) store.armedSchedules.add(s);
  else store.armedSchedules.delete(s);
}

function fireDue(store: Store, s: ScheduleRecord, now: number): void {
  for (let fired = 0; fired < SCHEDULE_MAX_CATCHUP; fired++) {
    if (s.paused || s.nextRunAt === null || s.nextRunAt > now) return;
    const at = s.nextRunAt;
    const cred = store.credentials.get(s.token);
    const record: ScheduleRunRecord = {
      id: randomUUID(),
      scheduleId: s.id,
      scheduledFor: at,
      createdAt: at,
      agentRunId: null,
      fixedStatus: null,
      error: null,
    };
    if (cred === undefined || cred.credits < s.availableCredits) {
      record.fixedStatus = 'skipped';
      record.error = `Insufficient credits: ${s.availableCredits} required, ${cred?.credits ?? 0} available`;
    } else {
      const run = createRun(
        store,
        {
          token: s.token,
          userId: s.userId,
          origin: 'schedule',
          scheduleId: s.id,
          input: {
            question: s.question,
            mode: s.mode,
            timeWindow: s.timeWindow,
            availableCredits: s.availableCredits,
            platforms: s.platforms,
            maxPost: s.maxPost,
            parentRunId: null,
            metadata: { schedule_id: s.id },
          },
        },
        at,
      );
      record.agentRunId = run.id;
    }
    store.addScheduleRun(record);
    s.lastRunAt = at;
    s.nextRunAt = computeNextRun(s, at + 1);
    s.updatedAt = at;
  }
}

function runStatus(run: RunRecord | undefined, record: ScheduleRunRecord): ScheduleRunStatus {
  if (record.fixedStatus !== null) return record.fixedStatus;
  if (run === undefined) return 'failed';
  // A waiting agent run is still in progress from the schedule's point of view.
  return run.status === 'waiting' ? 'running' : run.status;
}

export function scheduleRunView(store: Store, record: ScheduleRunRecord): JsonObject {
  const run = record.agentRunId === null ? undefined : store.runs.get(record.agentRunId);
  const status = runStatus(run, record);
  const ended = run?.completedAt ?? (record.fixedStatus !== null ? record.createdAt : null);
  return {
    id: record.id,
    schedule_id: record.scheduleId,
    status,
    scheduled_for: iso(record.scheduledFor),
    started_at: run?.startedAt == null ? null : iso(run.startedAt),
    ended_at: ended === null ? null : iso(ended),
    // Notification goes out when the run ends (the sandbox does not actually send email or Slack).
    notified_at: ended === null ? null : iso(ended),
    created_at: iso(record.createdAt),
    agent_run_id: record.agentRunId,
    credits_used: run?.usage?.credits_used ?? 0,
    error: record.error ?? run?.error ?? null,
    agent_run:
      run === undefined
        ? null
        : {
            id: run.id,
            status: run.status,
            confidence_level: run.confidence,
            signals_count: run.signalsCount,
            available_credits: run.availableCredits,
            credits_used: run.usage?.credits_used ?? 0,
            result_preview:
              typeof run.result?.report_markdown === 'string'
                ? run.result.report_markdown.slice(0, RESULT_PREVIEW_CHARS)
                : null,
            created_at: iso(run.createdAt),
          },
  };
}

export function scheduleRunsOf(store: Store, scheduleId: string): ScheduleRunRecord[] {
  return [...store.scheduleHistory(scheduleId)].sort(
    (a, b) => b.scheduledFor - a.scheduledFor || b.createdAt - a.createdAt,
  );
}

export function scheduleView(s: ScheduleRecord): JsonObject {
  return {
    id: s.id,
    name: s.name,
    question: s.question,
    recurrence_type: s.recurrenceType,
    recurrence_time: s.recurrenceTime,
    recurrence_timezone: s.recurrenceTimezone,
    recurrence_day_of_week: s.recurrenceDayOfWeek,
    recurrence_day_of_month: s.recurrenceDayOfMonth,
    starts_at: iso(s.startsAt),
    ends_at: s.endsAt === null ? null : iso(s.endsAt),
    available_credits: s.availableCredits,
    mode: s.mode,
    time_window: s.timeWindow,
    platforms: s.platforms,
    max_post: s.maxPost,
    notify_email: s.notifyEmail,
    notify_slack_webhook: s.notifySlackWebhook,
    notify_slack_channel_id: s.notifySlackChannelId,
    has_slack_bot_token: s.slackBotToken !== null,
    service_user_id: s.userId,
    paused: s.paused,
    paused_at: s.pausedAt === null ? null : iso(s.pausedAt),
    next_run_at: s.nextRunAt === null ? null : iso(s.nextRunAt),
    last_run_at: s.lastRunAt === null ? null : iso(s.lastRunAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}
