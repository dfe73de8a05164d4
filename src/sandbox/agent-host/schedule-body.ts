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
  TIME_WINDOW_DEFAULT,
  TIME_WINDOW_PATTERN,
} from '../constants.js';
import type { ScheduleRecord } from '../state/types.js';

/** A schedule's request body on create and PATCH: fields, defaults, cross-field rules and how a PATCH applies. */
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

export const createSchema = z.object({
  ...fields,
  available_credits: fields.available_credits.default(AGENT_CREDITS_DEFAULT),
  mode: fields.mode.default(RUN_MODE_DEFAULT),
  time_window: fields.time_window.default(TIME_WINDOW_DEFAULT),
});
export const patchSchema = z.object(fields).partial();
export type PatchBody = z.infer<typeof patchSchema>;

/** Cross-field rules, checked on the merged record so PATCH cannot leave a schedule inconsistent. */
export function ruleErrors(s: ScheduleRecord) {
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

export function apply(s: ScheduleRecord, b: PatchBody): void {
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

export const RECURRENCE_KEYS = [
  'recurrence_type',
  'recurrence_time',
  'recurrence_timezone',
  'recurrence_day_of_week',
  'recurrence_day_of_month',
  'starts_at',
  'ends_at',
] as const;
