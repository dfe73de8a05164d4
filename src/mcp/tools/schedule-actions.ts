import { z } from 'zod';
import { clip } from '../results/fence.js';
import { scheduleResult } from '../results/schedules.js';
import { NOT_FOUND, scheduleIdInput, scheduleOutput } from './schedule-fields.js';
import { DESTROY, defineTool, READ, type ToolAnnotationsSpec, UPDATE } from './types.js';

/** The upstream calls that take a schedule id and answer the schedule. */
type ScheduleCall = 'getSchedule' | 'pauseSchedule' | 'resumeSchedule';

/**
 * A tool that does one thing to one schedule named by `schedule_id` and answers it: read it, pause it or
 * resume it. What differs is said here; the rest (toolset, input, output, not-found words) is the family's.
 */
function scheduleAction(spec: {
  name: string;
  title: string;
  summary: string;
  description: string;
  annotations: ToolAnnotationsSpec;
  call: ScheduleCall;
  /** The word the result uses: "Schedule … paused." */
  verb: string;
}) {
  const reads = spec.annotations.readOnlyHint;
  return defineTool({
    name: spec.name,
    title: spec.title,
    summary: spec.summary,
    description: spec.description,
    scope: reads ? 'agent:read' : 'agent:write',
    toolset: 'schedules',
    spendsCredits: false,
    input: scheduleIdInput,
    output: scheduleOutput,
    annotations: spec.annotations,
    notFound: NOT_FOUND,
    team: reads ? { read: 'schedule', idArg: 'schedule_id' } : { change: 'schedule', idArg: 'schedule_id' },
    async run(args, ctx) {
      const schedule = await ctx.upstream[spec.call](ctx.creds, args.schedule_id, { signal: ctx.signal });
      return scheduleResult(schedule, spec.verb);
    },
  });
}

export const getAgentSchedule = scheduleAction({
  name: 'get_agent_schedule',
  title: 'Get a schedule',
  summary: 'One schedule with its configuration and 10 most recent runs.',
  description: 'One schedule: settings, next run, 10 latest runs. Free.',
  annotations: READ,
  call: 'getSchedule',
  verb: 'found',
});

export const pauseAgentSchedule = scheduleAction({
  name: 'pause_agent_schedule',
  title: 'Pause a schedule',
  summary: 'Pause a schedule (no runs until resumed; history kept).',
  description: 'Pauses a schedule: no runs until resumed; history kept.',
  annotations: UPDATE,
  call: 'pauseSchedule',
  verb: 'paused',
});

export const resumeAgentSchedule = scheduleAction({
  name: 'resume_agent_schedule',
  title: 'Resume a schedule',
  summary: 'Resume a paused schedule.',
  description: 'Resumes a paused schedule.',
  annotations: UPDATE,
  call: 'resumeSchedule',
  verb: 'resumed',
});

export const deleteAgentSchedule = defineTool({
  name: 'delete_agent_schedule',
  title: 'Delete a schedule',
  summary: 'Delete a schedule and its run history, permanently.',
  description: 'Deletes a schedule and its run history, permanently (its agent runs stay).',
  scope: 'agent:write',
  toolset: 'schedules',
  spendsCredits: false,
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
