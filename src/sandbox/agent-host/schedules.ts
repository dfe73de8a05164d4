import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { IANAZone } from 'luxon';
import { z } from 'zod';
import {
  AGENT_CREDITS_DEFAULT,
  AGENT_CREDITS_MAX,
  AGENT_CREDITS_MIN,
  KEYWORD_PLATFORMS,
  LABEL_MAX_LENGTH,
  MAX_POST_MAX,
  MAX_POST_MIN,
  QUESTION_MAX_LENGTH,
  RECURRENCE_TYPES,
  RUN_MODE_DEFAULT,
  RUN_MODES,
  SCHEDULE_RECENT_RUNS,
  TIME_WINDOW_DEFAULT,
  TIME_WINDOW_PATTERN,
} from '../constants.js';
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

const timestamp = z.iso.datetime({ offset: true });
const fields = {
  name: z.string().trim().min(1).max(LABEL_MAX_LENGTH),
  question: z.string().trim().min(1).max(QUESTION_MAX_LENGTH),
  recurrence_type: z.enum(RECURRENCE_TYPES),
  recurrence_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24-hour)'),
  recurrence_timezone: z.string().refine((tz) => IANAZone.isValidZone(tz), 'must be an IANA time zone'),
  starts_at: timestamp,
  recurrence_day_of_week: z.number().int().min(0).max(6).nullish(),
  recurrence_day_of_month: z.number().int().min(1).max(31).nullish(),
  ends_at: timestamp.nullish(),
  available_credits: z.number().int().min(AGENT_CREDITS_MIN).max(AGENT_CREDITS_MAX),
  mode: z.enum(RUN_MODES),
  time_window: z.string().regex(TIME_WINDOW_PATTERN),
  platforms: z.array(z.enum(KEYWORD_PLATFORMS)).min(1).nullish(),
  max_post: z.number().int().min(MAX_POST_MIN).max(MAX_POST_MAX).nullish(),
  notify_email: z.email().nullish(),
  notify_slack_webhook: z.url().nullish(),
  notify_slack_channel_id: z.string().max(100).nullish(),
  notify_slack_bot_token: z.string().max(500).nullish(),
};

const createSchema = z.object({
  ...fields,
  available_credits: fields.available_credits.default(AGENT_CREDITS_DEFAULT),
  mode: fields.mode.default(RUN_MODE_DEFAULT),
  time_window: fields.time_window.default(TIME_WINDOW_DEFAULT),
});
const patchSchema = z.object(fields).partial();
type PatchBody = z.infer<typeof patchSchema>;

/** Cross-field rules, checked on the merged record so PATCH cannot leave a schedule inconsistent. */
function ruleErrors(s: ScheduleRecord) {
  const items = [];
  if (s.recurrenceType === 'weekly' && s.recurrenceDayOfWeek === null) {
    items.push({
      loc: ['body', 'recurrence_day_of_week'],
      msg: 'Required for weekly schedules',
      type: 'missing',
    });
  }
  if (s.recurrenceType === 'monthly' && s.recurrenceDayOfMonth === null) {
    items.push({
      loc: ['body', 'recurrence_day_of_month'],
      msg: 'Required for monthly schedules',
      type: 'missing',
    });
  }
  if (s.endsAt !== null && s.endsAt <= s.startsAt) {
    items.push({ loc: ['body', 'ends_at'], msg: 'ends_at must be after starts_at', type: 'value_error' });
  }
  return items;
}

function apply(s: ScheduleRecord, b: PatchBody): void {
  if (b.name !== undefined) s.name = b.name;
  if (b.question !== undefined) s.question = b.question;
  if (b.recurrence_type !== undefined) s.recurrenceType = b.recurrence_type;
  if (b.recurrence_time !== undefined) s.recurrenceTime = b.recurrence_time;
  if (b.recurrence_timezone !== undefined) s.recurrenceTimezone = b.recurrence_timezone;
  if (b.starts_at !== undefined) s.startsAt = Date.parse(b.starts_at);
  if (b.recurrence_day_of_week !== undefined) s.recurrenceDayOfWeek = b.recurrence_day_of_week;
  if (b.recurrence_day_of_month !== undefined) s.recurrenceDayOfMonth = b.recurrence_day_of_month;
  if (b.ends_at !== undefined) s.endsAt = b.ends_at === null ? null : Date.parse(b.ends_at);
  if (b.available_credits !== undefined) s.availableCredits = b.available_credits;
  if (b.mode !== undefined) s.mode = b.mode;
  if (b.time_window !== undefined) s.timeWindow = b.time_window;
  if (b.platforms !== undefined) s.platforms = b.platforms;
  if (b.max_post !== undefined) s.maxPost = b.max_post;
  if (b.notify_email !== undefined) s.notifyEmail = b.notify_email;
  if (b.notify_slack_webhook !== undefined) s.notifySlackWebhook = b.notify_slack_webhook;
  if (b.notify_slack_channel_id !== undefined) s.notifySlackChannelId = b.notify_slack_channel_id;
  if (b.notify_slack_bot_token !== undefined) s.slackBotToken = b.notify_slack_bot_token;
}

const RECURRENCE_KEYS = [
  'recurrence_type',
  'recurrence_time',
  'recurrence_timezone',
  'recurrence_day_of_week',
  'recurrence_day_of_month',
  'starts_at',
  'ends_at',
] as const;

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
