import { z } from 'zod';
import { clip } from '../results/fence.js';
import { scheduleListResult, scheduleResult, scheduleRunsResult } from '../results/schedules.js';
import { creditsArg, modeArg, platformsArg, timeWindowArg } from './agent-run-work.js';
import { listInput } from './agent-runs.js';
import { compact, dateTimeArg, maxPostArg, text, uuidArg } from './common.js';
import { uuidRecord } from './outputs.js';
import { CREATE, DESTROY, defineTool, READ, type ToolDef, UPDATE } from './types.js';

const scheduleIdInput = z.strictObject({ schedule_id: uuidArg });

const NOT_FOUND = { what: 'schedule', listTool: 'list_agent_schedules' };

const scheduleFields = {
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
  id: z.string(),
  name: z.string().optional(),
  paused: z.boolean().optional(),
  next_run_at: z.string().optional().describe('Absent when paused or finished.'),
});

export const createAgentSchedule = defineTool({
  name: 'create_agent_schedule',
  title: 'Schedule recurring agent runs',
  summary: 'Create a schedule that runs an agent question daily, weekly, monthly or once.',
  description:
    'Runs the agent on a question daily, weekly, monthly or once; each run spends up to available_credits agent credits.',
  scope: 'agent:write',
  toolset: 'schedules',
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
    return scheduleResult(schedule, 'created');
  },
});

export const listAgentSchedules = defineTool({
  name: 'list_agent_schedules',
  title: 'List schedules',
  summary: 'List the recurring agent-run schedules of this account.',
  description: 'Lists schedules of this account: name, question, cadence, paused, next run. Free.',
  scope: 'agent:read',
  toolset: 'schedules',
  input: z.strictObject(listInput),
  output: z.looseObject({ schedules: z.array(uuidRecord), total: z.number().optional() }),
  annotations: READ,
  team: { list: 'schedule' },
  async run(args, ctx) {
    const list = await ctx.upstream.listSchedules(ctx.creds, compact(args), { signal: ctx.signal });
    return scheduleListResult(list, list.schedules);
  },
});

export const getAgentSchedule = defineTool({
  name: 'get_agent_schedule',
  title: 'Get a schedule',
  summary: 'One schedule with its configuration and 10 most recent runs.',
  description: 'Reads one schedule: settings, paused, next run and its 10 latest runs. Free.',
  scope: 'agent:read',
  toolset: 'schedules',
  input: scheduleIdInput,
  output: scheduleOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.getSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return scheduleResult(schedule, 'found');
  },
});

export const updateAgentSchedule = defineTool({
  name: 'update_agent_schedule',
  title: 'Change a schedule',
  summary: "Change a schedule's question, cadence, time or other settings.",
  description: "Changes a schedule's settings; give only what changes.",
  scope: 'agent:write',
  toolset: 'schedules',
  input: z
    .strictObject({
      schedule_id: uuidArg,
      // Described once, on create_agent_schedule: the names say what they are.
      ...Object.fromEntries(
        Object.entries(scheduleFields).map(([k, v]) => [k, v.optional().meta({ description: undefined })]),
      ),
    } as { schedule_id: typeof uuidArg } & {
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
    return scheduleResult(schedule, 'updated');
  },
});

export const pauseAgentSchedule = defineTool({
  name: 'pause_agent_schedule',
  title: 'Pause a schedule',
  summary: 'Pause a schedule (no runs until resumed; history kept).',
  description: 'Pauses a schedule: no runs until resumed; history kept.',
  scope: 'agent:write',
  toolset: 'schedules',
  input: scheduleIdInput,
  output: scheduleOutput,
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.pauseSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return scheduleResult(schedule, 'paused');
  },
});

export const resumeAgentSchedule = defineTool({
  name: 'resume_agent_schedule',
  title: 'Resume a schedule',
  summary: 'Resume a paused schedule.',
  description: 'Resumes a paused schedule.',
  scope: 'agent:write',
  toolset: 'schedules',
  input: scheduleIdInput,
  output: scheduleOutput,
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const schedule = await ctx.upstream.resumeSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return scheduleResult(schedule, 'resumed');
  },
});

export const deleteAgentSchedule = defineTool({
  name: 'delete_agent_schedule',
  title: 'Delete a schedule',
  summary: 'Delete a schedule and its run history, permanently.',
  description: 'Deletes a schedule and its run history, permanently (its agent runs stay).',
  scope: 'agent:write',
  toolset: 'schedules',
  input: scheduleIdInput,
  output: z.looseObject({ id: z.string(), deleted: z.boolean(), message: z.string().optional() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.deleteSchedule(ctx.creds, args.schedule_id, { signal: ctx.signal });
    return {
      data: { ...result, id: args.schedule_id, deleted: true },
      text: `Schedule ${args.schedule_id} deleted, with its run history${typeof result.message === 'string' ? ` (upstream: "${clip(result.message, 200)}")` : ''}; the agent runs it made stay.`,
    };
  },
});

export const listAgentScheduleRuns = defineTool({
  name: 'list_agent_schedule_runs',
  title: 'List runs of a schedule',
  summary: 'The execution history of a schedule, with a preview of each report.',
  description: "A schedule's runs: status, times, credits, agent_run_id and a report preview. Free.",
  scope: 'agent:read',
  toolset: 'schedules',
  input: z.strictObject({ schedule_id: uuidArg, ...listInput }),
  output: z.looseObject({ runs: z.array(uuidRecord), total: z.number().optional() }),
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'schedule', idArg: 'schedule_id' },
  async run(args, ctx) {
    const { schedule_id, ...query } = args;
    const list = await ctx.upstream.listScheduleRuns(ctx.creds, schedule_id, compact(query), {
      signal: ctx.signal,
    });
    return scheduleRunsResult(schedule_id, list, list.runs);
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
