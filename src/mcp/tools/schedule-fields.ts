import { z } from 'zod';
import { creditsArg, modeArg, platformsArg, timeWindowArg } from './agent-run-work.js';
import { dateTimeArg, maxPostArg, text, uuidArg } from './common.js';

/** What the schedule tools share: the id argument, every setting of a schedule, and the output. */

export const scheduleIdInput = z.strictObject({ schedule_id: uuidArg });

export const NOT_FOUND = { what: 'schedule', listTool: 'list_agent_schedules' };

export const scheduleFields = {
  name: text(200),
  question: text(2000),
  recurrence_type: z
    .enum(['daily', 'weekly', 'monthly', 'once'])
    .describe('weekly needs recurrence_day_of_week; monthly recurrence_day_of_month.'),
  recurrence_time: z
    .string()
    .refine((v) => /^([01]\d|2[0-3]):[0-5]\d$/.test(v), 'must be a time written HH:MM (24-hour)')
    .describe('HH:MM, 24-hour.'),
  recurrence_timezone: text(64).describe('IANA, e.g. Europe/London.'),
  starts_at: dateTimeArg,
  recurrence_day_of_week: z.number().int().min(0).max(6).describe('0 = Sunday.'),
  recurrence_day_of_month: z.number().int().min(1).max(31),
  ends_at: dateTimeArg,
  available_credits: creditsArg,
  mode: modeArg,
  time_window: timeWindowArg,
  platforms: platformsArg,
  max_post: maxPostArg,
  notify_email: z.email({ message: 'must be an email address' }),
  notify_slack_webhook: z.url({ protocol: /^https$/, message: 'must be an https URL' }),
  notify_slack_channel_id: text(100),
};

export const {
  name,
  question,
  recurrence_type,
  recurrence_time,
  recurrence_timezone,
  starts_at,
  ...optionalFields
} = scheduleFields;

export const scheduleOutput = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  paused: z.boolean().optional(),
  next_run_at: z.string().optional().describe('Absent when paused or finished.'),
});
