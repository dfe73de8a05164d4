import { z } from 'zod';
import type { RunRecord } from '../../upstream/schemas.js';
import { isTerminal, runOutput } from '../results/runs.js';
import { type WaitOutcome, waitFor, whyUnfinished } from '../waiting/wait.js';
import { compact, detailArg, KEYWORD_PLATFORMS, maxPostArg, text, uuidArg } from './common.js';
import { runOutputSchema, uuidRecord } from './outputs.js';
import { CREATE, DESTROY, defineTool, READ, type ToolContext, type ToolDef, UPDATE } from './types.js';

const NOT_FOUND = { what: 'agent run', listTool: 'list_agent_runs' };
export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'waiting'] as const;
export const RUN_MODES = ['trend_briefing', 'monitoring', 'competitive_intel'] as const;

export const modeArg = z.enum(RUN_MODES).describe('Default trend_briefing.');
/** Checked here, not listed as a pattern: the description says it in fewer tokens. */
export const timeWindowArg = z
  .string()
  .refine((v) => /^\d{1,3}[hdwm]$/.test(v), 'must be a number followed by h, d, w or m, e.g. 24h, 7d, 30d')
  .describe('e.g. 24h, 7d (default), 30d.');
export const creditsArg = z
  .number()
  .int()
  .min(1)
  .max(4)
  .describe('Effort: most credits spent, 1 per internal search (default 4).');
export const platformsArg = z.array(z.enum(KEYWORD_PLATFORMS)).min(1);

/** A run as a result; `nextStep` says what to call when it has not ended. */
function runResult(run: RunRecord, args: { detail?: 'summary' | 'full' | undefined }, nextStep?: string) {
  return runOutput(run, { detail: args.detail ?? 'summary', ...(nextStep ? { nextStep } : {}) });
}

/** Module functions, like runProgress: not closures made for each waiting call. */
const runEnded = (record: RunRecord) => isTerminal(record.status);

function runProgress(record: RunRecord) {
  const p = record.progress ?? null;
  if (record.status === 'waiting') {
    return {
      percentage: Number(p?.percentage ?? 0),
      phase: 'waiting',
      message: 'Search backend unavailable; the run resumes automatically',
    };
  }
  if (record.status === 'pending') return { percentage: 0, phase: 'pending', message: 'Run queued' };
  if (isTerminal(record.status))
    return { percentage: 100, phase: record.status, message: `Run ${record.status}` };
  return {
    percentage: Number(p?.percentage ?? 0),
    phase: p?.phase ?? 'running',
    message: p?.step_label ?? (p?.current_tool ? `Using ${p.current_tool}` : 'Working'),
  };
}

export const startAgentRun = defineTool({
  name: 'start_agent_run',
  title: 'Ask the research agent',
  summary:
    'Ask a plain-English question; the agent researches social platforms and returns a structured report.',
  description:
    'Researches a question across social platforms and writes a report (signals, evidence, confidence); waits 3–5 minutes. Spends up to available_credits agent credits.',
  scope: 'agent:write',
  toolset: 'agent_runs',
  input: z.strictObject({
    question: text(2000),
    mode: modeArg.optional(),
    time_window: timeWindowArg.optional(),
    available_credits: creditsArg.optional(),
    platforms: platformsArg.optional(),
    max_post: maxPostArg.optional(),
    parent_run_id: uuidArg.optional().describe('A run this one follows up on.'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Free JSON kept with the run.'),
    detail: detailArg.optional(),
  }),
  output: runOutputSchema,
  annotations: CREATE,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'parent_run_id' },
  waits: true,
  async run(args, ctx) {
    const { detail, ...body } = args;
    const created = await ctx.upstream.createRun(ctx.creds, compact(body), { signal: ctx.signal });
    // The answer is made in a continuation of the wait: this function does not stay suspended while
    // the run works (issue 18: heap per waiting call). Its closures keep the id, not the record.
    const id = created.id;
    return waitFor(ctx, {
      key: `run:${id}`,
      initial: created,
      poll: (signal) => ctx.upstream.getRun(ctx.creds, id, { signal }),
      isDone: runEnded,
      progress: runProgress,
      maxWaitMs: ctx.options.runMaxWaitMs,
    }).then((outcome) => runAfterWait(ctx, id, outcome, args));
  },
});

/** A started run's answer once the wait is over; a wait the caller cancelled cancels the run upstream. */
async function runAfterWait(
  ctx: ToolContext,
  runId: string,
  outcome: WaitOutcome<RunRecord>,
  args: { detail?: 'summary' | 'full' | undefined },
) {
  if (outcome.kind === 'done') return runResult(outcome.record, args);
  if (outcome.kind === 'cancelled') {
    // The caller gave up: stop spending their credits. A fresh signal, the call's own is aborted.
    try {
      const cancelled = await ctx.upstream.cancelRun(ctx.creds, runId, {
        signal: AbortSignal.timeout(10_000),
      });
      return runResult(
        { ...outcome.record, ...cancelled, id: runId, status: String(cancelled.status ?? 'failed') },
        { detail: args.detail },
      );
    } catch {
      return runResult(
        outcome.record,
        { detail: args.detail },
        `The wait was cancelled; cancelling the run upstream failed. Call cancel_agent_run with run_id ${runId}.`,
      );
    }
  }
  return runResult(
    outcome.record,
    args,
    `${whyUnfinished(outcome, 'run')} Call get_agent_run with run_id ${runId} later for the report.`,
  );
}

const listInput = {
  limit: z.number().int().min(1).max(100).optional().describe('Default 50.'),
  offset: z.number().int().min(0).optional(),
};

export const listAgentRuns = defineTool({
  name: 'list_agent_runs',
  title: 'List agent runs',
  summary: 'List agent runs (question, status, confidence, pinned, label), newest first.',
  description:
    'Lists agent runs of this account: question, status, confidence, pinned, label, dates; no reports. Free.',
  scope: 'agent:read',
  toolset: 'agent_runs',
  input: z.strictObject({
    status: z.enum(RUN_STATUSES).optional(),
    user_id: text(200).optional().describe('Only runs of this upstream user.'),
    ...listInput,
  }),
  output: z.looseObject({
    runs: z.array(uuidRecord),
    total: z.number().optional(),
    limit: z.number().optional(),
    offset: z.number().optional(),
  }),
  annotations: READ,
  team: { list: 'run', userArg: 'user_id' },
  async run(args, ctx) {
    const list = await ctx.upstream.listRuns(ctx.creds, compact(args), { signal: ctx.signal });
    return {
      data: list,
      text: `${list.runs.length} of ${String(list.total ?? list.runs.length)} agent run(s).`,
      json: true,
    };
  },
});

export const getAgentRun = defineTool({
  name: 'get_agent_run',
  title: 'Get an agent run',
  summary: 'Status, progress and (when completed) the full report of one agent run.',
  description: 'Reads one agent run: progress, or the report once completed. Free; does not wait.',
  scope: 'agent:read',
  toolset: 'agent_runs',
  input: z.strictObject({ run_id: uuidArg, detail: detailArg.optional() }),
  output: runOutputSchema,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const record = await ctx.upstream.getRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return runResult(
      record,
      args,
      isTerminal(record.status) ? undefined : 'Call get_agent_run again in a little while.',
    );
  },
});

const runIdInput = z.strictObject({ run_id: uuidArg });

export const cancelAgentRun = defineTool({
  name: 'cancel_agent_run',
  title: 'Cancel an agent run',
  summary: 'Stop a pending or running agent run (it ends as failed).',
  description: 'Stops a pending or running agent run; it ends as failed.',
  scope: 'agent:write',
  toolset: 'agent_runs',
  input: runIdInput,
  output: z.looseObject({ id: z.string(), status: z.string().optional(), cancelled: z.boolean().optional() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.cancelRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return { data: { id: args.run_id, ...result }, text: `Agent run ${args.run_id} cancelled.`, json: true };
  },
});

export const rerunAgentRun = defineTool({
  name: 'rerun_agent_run',
  title: 'Rerun an agent run',
  summary: 'Start a failed, waiting or running agent run again (not completed ones).',
  description:
    'Starts a failed, waiting or running run again (not a completed one), without waiting. Spends agent credits.',
  scope: 'agent:write',
  toolset: 'agent_runs',
  input: runIdInput,
  output: z.looseObject({ id: z.string(), status: z.string().optional() }),
  annotations: { ...CREATE, idempotentHint: false },
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.rerunRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return {
      data: { id: args.run_id, ...result },
      text: `Agent run ${args.run_id} re-enqueued (${String(result.status ?? 'pending')}). Call get_agent_run later for the report.`,
      json: true,
    };
  },
});

export const updateAgentRun = defineTool({
  name: 'update_agent_run',
  title: 'Rename or pin an agent run',
  summary: 'Set the label and/or pinned flag of an agent run.',
  description: "Sets a run's label and/or pinned flag (at least one).",
  scope: 'agent:write',
  toolset: 'agent_runs',
  input: z
    .strictObject({
      run_id: uuidArg,
      pinned: z.boolean().optional(),
      label: text(200, 0).optional(),
    })
    .refine((a) => a.pinned !== undefined || a.label !== undefined, {
      message: 'give pinned, label or both',
    }),
  output: z.looseObject({ id: z.string(), pinned: z.boolean().optional(), label: z.string().optional() }),
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const { run_id, ...body } = args;
    const result = await ctx.upstream.updateRun(ctx.creds, run_id, compact(body), { signal: ctx.signal });
    return { data: { id: run_id, ...result }, text: `Agent run ${run_id} updated.`, json: true };
  },
});

export const deleteAgentRun = defineTool({
  name: 'delete_agent_run',
  title: 'Delete an agent run',
  summary: 'Delete a completed or failed agent run from the lists.',
  description: 'Deletes a completed or failed agent run from the lists (cancel a running one first).',
  scope: 'agent:write',
  toolset: 'agent_runs',
  input: runIdInput,
  output: z.looseObject({ id: z.string(), discarded: z.boolean().optional() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.deleteRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return { data: { id: args.run_id, ...result }, text: `Agent run ${args.run_id} deleted.`, json: true };
  },
});

export { listInput };

export const agentRunTools: ToolDef[] = [
  startAgentRun,
  listAgentRuns,
  getAgentRun,
  cancelAgentRun,
  rerunAgentRun,
  updateAgentRun,
  deleteAgentRun,
];
