import { z } from 'zod';
import { creditsArg, modeArg, platformsArg, timeWindowArg } from './agent-runs.js';
import { compact, maxPostArg, uuidArg } from './common.js';
import { CREATE, DESTROY, defineTool, READ, type ToolDef, UPDATE } from './types.js';

const NOT_FOUND = { what: 'schedule', listTool: 'list_agent_schedules' };

const scheduleFields = {
  name: z.string().min(1).max(200).describe('A name for the schedule.'),
  question: z.string().min(1).max(2000).describe('The plain-English question each run answers.'),
  recurrence_type: z
    .enum(['daily', 'weekly', 'monthly', 'once'])
    .describe(
      'How often it runs: daily, weekly (needs recurrence_day_of_week), monthly (needs recurrence_day_of_month) or once.',
    ),
  recurrence_time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time written HH:MM (24-hour)')
    .describe('Time of day, HH:MM 24-hour, in recurrence_timezone.'),
  recurrence_timezone: z
    .string()
    .min(1)
    .max(64)
    .describe('IANA time zone, e.g. Europe/London or America/New_York.'),
  starts_at: z.iso
    .datetime({ offset: true })
    .describe('When the schedule starts, ISO 8601 (e.g. 2026-03-01T09:00:00Z).'),
  recurrence_day_of_week: z.number().int().min(0).max(6).describe('Weekly only: 0 = Sunday … 6 = Saturday.'),
  recurrence_day_of_month: z
    .number()
    .int()
    .min(1)
    .max(31)
    .describe('Monthly only: 1–31 (a day past the month end runs on its last day).'),
  ends_at: z.iso.datetime({ offset: true }).describe('When the schedule stops, ISO 8601.'),
  available_credits: creditsArg,
  mode: modeArg,
  time_window: timeWindowArg,
  platforms: platformsArg,
  max_post: maxPostArg('per platform per internal search'),
  notify_email: z.email().describe('Email address notified after each run.'),
  notify_slack_webhook: z
    .url({ protocol: /^https$/ })
    .describe('Slack incoming-webhook URL notified after each run.'),
  notify_slack_channel_id: z.string().min(1).max(100).describe('Slack channel id to notify.'),
};

const {
  name,
  question,
  recurrence_type,
  recurrence_time,
  recurrence_timezone,
  starts_at,
  ...optionalFields
} = scheduleFields;

const scheduleOutput = z.looseObject({
  id: z.string().describe('Id of the schedule (UUID).'),
  paused: z.boolean().nullish(),
  next_run_at: z.string().nullish().describe('Next run time, or null when paused or finished.'),
});

function scheduleSummary(s: Record<string, unknown>, verb: string): string {
  const next = s.next_run_at ? ` Next run: ${String(s.next_run_at)}.` : '';
  return `Schedule ${String(s.id)} ${verb}.${s.paused ? ' It is paused.' : ''}${next}`;
}

export const createAgentSchedule = defineTool({
  name: 'create_agent_schedule',
  title: 'Schedule recurring agent runs',
  summary: 'Create a schedule that runs an agent question daily, weekly, monthly or once.',
  description:
    'Creates a schedule that starts an agent run answering the same question on a cadence (daily, weekly, monthly or once) at a time of day in a time zone. ' +
    'Each run spends agent credits. Weekly needs recurrence_day_of_week; monthly needs recurrence_day_of_month. Notifications by email or Slack are optional.',
  scope: 'agent:write',
  input: z.strictObject({
    name,
    question,
    recurrence_type,
    recurrence_time,
    recurrence_timezone,
    starts_at,
    ...Object.fromEntries(Object.entries(optionalFields).map(([k, v]) => [k, v.optional()])),
  } as typeof scheduleFields extends infer F ? { [K in keyof F]: F[K] } : never),
  output: scheduleOutput,
  annotations: CREATE,
  team: { create: 'schedule' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.createSchedule(ctx.creds, compact(args), { signal: ctx.signal });
    return { data: schedule, summary: scheduleSummary(schedule, 'created') };
  },
});

export const listAgentSchedules = defineTool({
  name: 'list_agent_schedules',
  title: 'List schedules',
  summary: 'List the recurring agent-run schedules of this account.',
  description:
    'Lists schedules (name, question, cadence, paused, next run). Page with limit (1–100, default 50) and offset.',
  scope: 'agent:read',
  input: z.strictObject({
    limit: z.number().int().min(1).max(100).optional().describe('Schedules per page, 1–100 (default 50).'),
    offset: z.number().int().min(0).optional().describe('Schedules to skip (default 0).'),
  }),
  output: z.looseObject({ schedules: z.array(z.looseObject({})), total: z.number().nullish() }),
  annotations: READ,
  team: { list: 'schedule' },
  async run(args, ctx) {
    const list = await ctx.upstream.listSchedules(ctx.creds, compact(args), { signal: ctx.signal });
    return {
      data: list,
      summary: `${list.schedules.length} of ${String(list.total ?? list.schedules.length)} schedule(s).`,
    };
  },
});

export const getAgentSchedule = defineTool({
  name: 'get_agent_schedule',
  title: 'Get a schedule',
  summary: 'One schedule with its configuration and 10 most recent runs.',
  description:
    'Reads one schedule: its configuration, paused state, next run time and its 10 most recent schedule runs (recent_runs).',
  scope: 'agent:read',
  input: z.strictObject({ schedule_id: uuidArg('schedule') }),
  output: scheduleOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.getSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return { data: schedule, summary: scheduleSummary(schedule, 'found') };
  },
});

export const updateAgentSchedule = defineTool({
  name: 'update_agent_schedule',
  title: 'Change a schedule',
  summary: "Change a schedule's question, cadence, time or other settings.",
  description:
    'Changes any settings of a schedule (name, question, cadence, time, time zone, dates, credits, mode, platforms, notifications); give only what changes. The next run time is recalculated when the cadence changes.',
  scope: 'agent:write',
  input: z
    .strictObject({
      schedule_id: uuidArg('schedule'),
      ...Object.fromEntries(Object.entries(scheduleFields).map(([k, v]) => [k, v.optional()])),
    } as { schedule_id: ReturnType<typeof uuidArg> } & {
      [K in keyof typeof scheduleFields]: z.ZodOptional<(typeof scheduleFields)[K]>;
    })
    .refine(
      (a) =>
        Object.keys(a).some((k) => k !== 'schedule_id' && (a as Record<string, unknown>)[k] !== undefined),
      {
        message: 'give at least one setting to change',
      },
    ),
  output: scheduleOutput,
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const { schedule_id, ...body } = args;
    const schedule = await ctx.upstream.updateSchedule(ctx.creds, schedule_id, compact(body), {
      signal: ctx.signal,
    });
    return { data: schedule, summary: scheduleSummary(schedule, 'updated') };
  },
});

export const pauseAgentSchedule = defineTool({
  name: 'pause_agent_schedule',
  title: 'Pause a schedule',
  summary: 'Pause a schedule (no runs until resumed; history kept).',
  description: 'Pauses a schedule: no new runs until it is resumed; its run history is kept.',
  scope: 'agent:write',
  input: z.strictObject({ schedule_id: uuidArg('schedule') }),
  output: scheduleOutput,
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.pauseSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return { data: schedule, summary: scheduleSummary(schedule, 'paused') };
  },
});

export const resumeAgentSchedule = defineTool({
  name: 'resume_agent_schedule',
  title: 'Resume a schedule',
  summary: 'Resume a paused schedule.',
  description: 'Resumes a paused schedule; the next run time is recalculated.',
  scope: 'agent:write',
  input: z.strictObject({ schedule_id: uuidArg('schedule') }),
  output: scheduleOutput,
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.resumeSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return { data: schedule, summary: scheduleSummary(schedule, 'resumed') };
  },
});

export const deleteAgentSchedule = defineTool({
  name: 'delete_agent_schedule',
  title: 'Delete a schedule',
  summary: 'Delete a schedule and its run history, permanently.',
  description:
    'Deletes a schedule permanently, with its execution history. Runs it already created stay in list_agent_runs.',
  scope: 'agent:write',
  input: z.strictObject({ schedule_id: uuidArg('schedule') }),
  output: z.looseObject({ id: z.string(), deleted: z.boolean(), message: z.string().nullish() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.deleteSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return {
      data: { ...result, id: args.schedule_id, deleted: true },
      summary: `Schedule ${args.schedule_id} deleted${typeof result.message === 'string' ? `: ${result.message}` : '.'}`,
    };
  },
});

export const listAgentScheduleRuns = defineTool({
  name: 'list_agent_schedule_runs',
  title: 'List runs of a schedule',
  summary: 'The execution history of a schedule, with a preview of each report.',
  description:
    'Lists the executions of a schedule: status (pending, running, completed, failed, skipped), times, credits used, the linked agent run id and a ~300-character report preview. ' +
    'Use get_agent_run with agent_run_id for a full report. Page with limit (1–100, default 50) and offset.',
  scope: 'agent:read',
  input: z.strictObject({
    schedule_id: uuidArg('schedule'),
    limit: z.number().int().min(1).max(100).optional().describe('Runs per page, 1–100 (default 50).'),
    offset: z.number().int().min(0).optional().describe('Runs to skip (default 0).'),
  }),
  output: z.looseObject({ runs: z.array(z.looseObject({})), total: z.number().nullish() }),
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const { schedule_id, ...query } = args;
    const list = await ctx.upstream.listScheduleRuns(ctx.creds, schedule_id, compact(query), {
      signal: ctx.signal,
    });
    return {
      data: list,
      summary: `${list.runs.length} of ${String(list.total ?? list.runs.length)} run(s) of schedule ${schedule_id}.`,
    };
  },
});

export const scheduleTools: ToolDef[] = [
  createAgentSchedule,
  listAgentSchedules,
  getAgentSchedule,
  updateAgentSchedule,
  pauseAgentSchedule,
  resumeAgentSchedule,
  deleteAgentSchedule,
  listAgentScheduleRuns,
];
