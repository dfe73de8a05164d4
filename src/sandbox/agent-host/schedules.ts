import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { SCHEDULE_RECENT_RUNS } from '../constants.js';
import { readJson } from '../http.js';
import {
  computeNextRun,
  scheduleRunsOf,
  scheduleRunView,
  scheduleView,
  settleSchedule,
  trackSchedule,
} from '../schedules.js';
import type { Store } from '../state/store.js';
import type { ScheduleRecord } from '../state/types.js';
import {
  type AgentEnv,
  agentAuth,
  badUuid,
  detail,
  invalid,
  jsonInvalid,
  pageSchema,
  zodInvalid,
} from './common.js';

import { apply, createSchema, patchSchema, RECURRENCE_KEYS, ruleErrors } from './schedule-body.js';

export function scheduleRoutes(store: Store): Hono<AgentEnv> {
  const app = new Hono<AgentEnv>();
  const auth = agentAuth(store);

  const find = (token: string, id: string): ScheduleRecord | undefined => {
    const s = store.schedules.get(id.toLowerCase());
    if (s === undefined || s.token !== token) return undefined;
    settleSchedule(store, s);
    return s;
  };

  app.post('/api/v1/schedules', auth, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return jsonInvalid(c, body);
    const parsed = createSchema.safeParse(body.value ?? {});
    if (!parsed.success) return zodInvalid(c, parsed.error, 'body');
    const now = store.now();
    const d = parsed.data;
    const s: ScheduleRecord = {
      seq: store.sequence(),
      id: randomUUID(),
      token: c.get('cred').token,
      userId: c.get('userId'),
      name: d.name,
      question: d.question,
      recurrenceType: d.recurrence_type,
      recurrenceTime: d.recurrence_time,
      recurrenceTimezone: d.recurrence_timezone,
      recurrenceDayOfWeek: d.recurrence_day_of_week ?? null,
      recurrenceDayOfMonth: d.recurrence_day_of_month ?? null,
      startsAt: Date.parse(d.starts_at),
      endsAt: d.ends_at == null ? null : Date.parse(d.ends_at),
      availableCredits: d.available_credits,
      mode: d.mode,
      timeWindow: d.time_window,
      platforms: d.platforms ?? null,
      maxPost: d.max_post ?? null,
      notifyEmail: d.notify_email ?? null,
      notifySlackWebhook: d.notify_slack_webhook ?? null,
      notifySlackChannelId: d.notify_slack_channel_id ?? null,
      slackBotToken: d.notify_slack_bot_token ?? null,
      paused: false,
      pausedAt: null,
      nextRunAt: null,
      lastRunAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const errors = ruleErrors(s);
    if (errors.length > 0) return invalid(c, errors);
    s.nextRunAt = computeNextRun(s, now);
    store.addSchedule(s);
    settleSchedule(store, s);
    return c.json(scheduleView(s), 201);
  });

  app.get('/api/v1/schedules', auth, (c) => {
    const parsed = pageSchema.safeParse(c.req.query());
    if (!parsed.success) return zodInvalid(c, parsed.error, 'query');
    const { limit, offset } = parsed.data;
    const token = c.get('cred').token;
    const mine = [...store.ownedBy(token).schedules].sort(
      (a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id),
    );
    for (const s of mine) settleSchedule(store, s);
    return c.json({
      schedules: mine.slice(offset, offset + limit).map(scheduleView),
      total: mine.length,
      limit,
      offset,
    });
  });

  app.get('/api/v1/schedules/:id', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    const recent = scheduleRunsOf(store, s.id)
      .slice(0, SCHEDULE_RECENT_RUNS)
      .map((r) => scheduleRunView(store, r));
    return c.json({ ...scheduleView(s), recent_runs: recent });
  });

  app.patch('/api/v1/schedules/:id', auth, async (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const body = await readJson(c);
    if (!body.ok) return jsonInvalid(c, body);
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    const parsed = patchSchema.safeParse(body.value ?? {});
    if (!parsed.success) return zodInvalid(c, parsed.error, 'body');
    if (Object.keys(parsed.data).length === 0) {
      return invalid(c, [
        { loc: ['body'], msg: 'At least one field to update is required', type: 'value_error' },
      ]);
    }
    // Validate on a copy so a refused PATCH changes nothing.
    const next: ScheduleRecord = { ...s };
    apply(next, parsed.data);
    const errors = ruleErrors(next);
    if (errors.length > 0) return invalid(c, errors);
    const now = store.now();
    next.updatedAt = now;
    if (!next.paused && RECURRENCE_KEYS.some((k) => k in parsed.data)) {
      if (next.recurrenceType !== 'once' || next.lastRunAt === null)
        next.nextRunAt = computeNextRun(next, now);
    }
    Object.assign(s, next);
    settleSchedule(store, s);
    return c.json(scheduleView(s));
  });

  app.post('/api/v1/schedules/:id/pause', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    // Pausing a paused schedule is a no-op (assumed), keeping the original paused_at.
    if (!s.paused) {
      const now = store.now();
      Object.assign(s, { paused: true, pausedAt: now, nextRunAt: null, updatedAt: now });
      trackSchedule(store, s);
    }
    return c.json(scheduleView(s));
  });

  app.post('/api/v1/schedules/:id/resume', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    if (s.paused) {
      const now = store.now();
      Object.assign(s, { paused: false, pausedAt: null, updatedAt: now });
      // next_run_at is recalculated on resume (observed); missed occurrences while paused are not replayed.
      s.nextRunAt = computeNextRun(s, now);
      trackSchedule(store, s);
    }
    return c.json(scheduleView(s));
  });

  app.delete('/api/v1/schedules/:id', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    store.deleteSchedule(s);
    return c.json({ message: 'Schedule deleted' });
  });

  app.get('/api/v1/schedules/:id/runs', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'schedule_id', id);
    if (bad !== null) return bad;
    const parsed = pageSchema.safeParse(c.req.query());
    if (!parsed.success) return zodInvalid(c, parsed.error, 'query');
    const s = find(c.get('cred').token, id);
    if (s === undefined) return detail(c, 404, 'Schedule not found');
    const { limit, offset } = parsed.data;
    const all = scheduleRunsOf(store, s.id);
    return c.json({
      runs: all.slice(offset, offset + limit).map((r) => scheduleRunView(store, r)),
      total: all.length,
      limit,
      offset,
    });
  });

  return app;
}
