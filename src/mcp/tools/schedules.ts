import { z } from 'zod';
import { scheduleListResult, scheduleResult, scheduleRunsResult } from '../results/schedules.js';
import { listInput } from './agent-runs.js';
import { compact, uuidArg } from './common.js';
import { uuidRecord } from './output-schemas.js';
import {
  deleteAgentSchedule,
  getAgentSchedule,
  pauseAgentSchedule,
  resumeAgentSchedule,
} from './schedule-actions.js';
import {
  NOT_FOUND,
  name,
  optionalFields,
  question,
  recurrence_time,
  recurrence_timezone,
  recurrence_type,
  scheduleFields,
  scheduleOutput,
  starts_at,
} from './schedule-fields.js';
import { CREATE, defineTool, READ, type ToolDef, UPDATE } from './types.js';

export const createAgentSchedule = defineTool({
  name: 'create_agent_schedule',
  title: 'Schedule recurring agent runs',
  summary: 'Create a schedule that runs an agent question daily, weekly, monthly or once.',
  description:
    'Runs the agent on a question daily, weekly, monthly or once; each run spends up to available_credits agent credits.',
  scope: 'agent:write',
  toolset: 'schedules',
  spendsCredits: true,
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
  spendsCredits: false,
  input: z.strictObject(listInput),
  output: z.looseObject({ schedules: z.array(uuidRecord), total: z.number().optional() }),
  annotations: READ,
  team: { list: 'schedule' },
  async run(args, ctx) {
    const list = await ctx.upstream.listSchedules(ctx.creds, compact(args), { signal: ctx.signal });
    return scheduleListResult(list, list.schedules);
  },
});

/** A budget read as a balance, platform names, a count per platform read as a total. */
const MISREADABLE = new Set(['available_credits', 'platforms', 'max_post']);

export const updateAgentSchedule = defineTool({
  name: 'update_agent_schedule',
  title: 'Change a schedule',
  summary: "Change a schedule's question, cadence, time or other settings.",
  description: "Changes a schedule's settings; give only what changes.",
  scope: 'agent:write',
  toolset: 'schedules',
  spendsCredits: false,
  input: z
    .strictObject({
      schedule_id: uuidArg,
      // Described once, on create_agent_schedule, but for those a model could misread here.
      ...Object.fromEntries(
        Object.entries(scheduleFields).map(([k, v]) => [
          k,
          MISREADABLE.has(k) ? v.optional() : v.optional().meta({ description: undefined }),
        ]),
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

export const listAgentScheduleRuns = defineTool({
  name: 'list_agent_schedule_runs',
  title: 'List runs of a schedule',
  summary: 'The execution history of a schedule, with a preview of each report.',
  description: "A schedule's runs: status, times, credits, agent_run_id and a report preview. Free.",
  scope: 'agent:read',
  toolset: 'schedules',
  spendsCredits: false,
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
