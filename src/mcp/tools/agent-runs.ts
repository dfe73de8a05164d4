import { z } from 'zod';
import type { RunRecord } from '../../upstream/schemas.js';
import { waitFor, whyUnfinished } from '../wait.js';
import {
  compact,
  KEYWORD_PLATFORMS,
  maxPostArg,
  pendingFields,
  truncationOutput,
  uuidArg,
} from './common.js';
import { CREATE, DESTROY, defineTool, READ, type ToolDef, type ToolOutput, UPDATE } from './types.js';

const NOT_FOUND = { what: 'agent run', listTool: 'list_agent_runs' };
export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'waiting'] as const;
export const RUN_MODES = ['trend_briefing', 'monitoring', 'competitive_intel'] as const;

export const modeArg = z
  .enum(RUN_MODES)
  .describe('Kind of report: trend_briefing (default), monitoring or competitive_intel.');
export const timeWindowArg = z
  .string()
  .regex(/^\d{1,3}[hdwm]$/, 'must be a number followed by h, d, w or m, e.g. 24h, 7d, 30d')
  .describe('How far back the agent looks: e.g. 24h, 7d (default), 30d.');
export const creditsArg = z
  .number()
  .int()
  .min(1)
  .max(4)
  .describe(
    'Reasoning effort as a credit budget, 1–4 (low, medium, high, max; default 4). One credit per internal search.',
  );
export const platformsArg = z
  .array(z.enum(KEYWORD_PLATFORMS))
  .min(1)
  .describe('Platforms the agent may search.');

const includeHtmlArg = z
  .boolean()
  .describe(
    'Also return the report as HTML (report_html). Default false: the markdown report has the same content.',
  );

const runOutput = z.looseObject({
  run_id: z.string().describe('Id of the agent run (UUID).'),
  completed: pendingFields.completed,
  next_step: pendingFields.next_step,
  status: z
    .string()
    .describe(
      'pending, running, completed, failed or waiting (search backend unavailable; resumes automatically).',
    ),
  question: z.string().nullish(),
  progress: z.unknown().optional(),
  result: z
    .unknown()
    .optional()
    .describe(
      'When completed: confidence_level, signals (severity, label, description), evidence_links, report_markdown.',
    ),
  usage: z.unknown().optional(),
  _truncated: truncationOutput,
});

function isTerminal(status: string): boolean {
  return status === 'completed' || status === 'failed';
}

function runResult(record: RunRecord, includeHtml: boolean, nextStep?: string): ToolOutput {
  const completed = isTerminal(record.status);
  const data: Record<string, unknown> = { run_id: record.id, completed, ...record };
  if (!includeHtml && record.result && typeof record.result === 'object' && 'report_html' in record.result) {
    const { report_html: _dropped, ...rest } = record.result;
    data.result = rest;
  }
  if (nextStep) data.next_step = nextStep;
  let summary: string;
  if (record.status === 'completed') {
    const r = (record.result ?? {}) as Record<string, unknown>;
    const signals = Array.isArray(r.signals) ? r.signals.length : 0;
    summary = `Agent run ${record.id} completed (confidence ${String(r.confidence_level ?? 'unknown')}, ${signals} signal(s)). The report is in result.report_markdown.`;
  } else if (record.status === 'failed') {
    summary = `Agent run ${record.id} failed${record.error ? `: ${typeof record.error === 'string' ? record.error : JSON.stringify(record.error)}` : ''}. rerun_agent_run can start it again.`;
  } else if (record.status === 'waiting') {
    summary = `Agent run ${record.id} is waiting: the search backend is temporarily unavailable and the run resumes automatically. ${nextStep ?? ''}`;
  } else {
    summary = `Agent run ${record.id} is ${record.status}. ${nextStep ?? ''}`;
  }
  return { data, summary: summary.trim() };
}

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
    'Starts an agent run: the agent researches a plain-English question across social platforms and writes a report with signals, evidence links and a confidence rating. ' +
    'Waits until the run completes (typically 3–5 minutes) and returns the full report in markdown. Spends up to available_credits agent credits. ' +
    'If the wait limit is reached, the run id is returned with completed=false: call get_agent_run later. Cancelling this call cancels the run.',
  scope: 'agent:write',
  input: z.strictObject({
    question: z
      .string()
      .min(1)
      .max(2000)
      .describe(
        'The question, in plain English (e.g. "What are people saying about heat pumps in the UK this week?").',
      ),
    mode: modeArg.optional(),
    time_window: timeWindowArg.optional(),
    available_credits: creditsArg.optional(),
    platforms: platformsArg.optional(),
    max_post: maxPostArg('per platform per internal search').optional(),
    parent_run_id: uuidArg('earlier run this one follows up on').optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Free-form JSON object stored with the run (e.g. your own reference ids).'),
    include_html: includeHtmlArg.optional(),
  }),
  output: runOutput,
  annotations: CREATE,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'parent_run_id' },
  async run(args, ctx) {
    const { include_html, ...body } = args;
    const created = await ctx.upstream.createRun(ctx.creds, compact(body), { signal: ctx.signal });
    const outcome = await waitFor(ctx, {
      initial: created,
      poll: (signal) => ctx.upstream.getRun(ctx.creds, created.id, { signal }),
      isDone: (r) => isTerminal(r.status),
      progress: runProgress,
      maxWaitMs: ctx.options.runMaxWaitMs,
    });
    if (outcome.kind === 'done') return runResult(outcome.record, include_html === true);
    if (outcome.kind === 'cancelled') {
      // The caller gave up: stop spending their credits. A fresh signal, the call's own is aborted.
      try {
        const cancelled = await ctx.upstream.cancelRun(ctx.creds, created.id, {
          signal: AbortSignal.timeout(10_000),
        });
        return runResult(
          { ...outcome.record, ...cancelled, id: created.id, status: String(cancelled.status ?? 'failed') },
          false,
        );
      } catch {
        return runResult(
          outcome.record,
          false,
          `The wait was cancelled; cancelling the run upstream failed. Call cancel_agent_run with run_id ${created.id}.`,
        );
      }
    }
    return runResult(
      outcome.record,
      include_html === true,
      `${whyUnfinished(outcome, 'run')} Call get_agent_run with run_id ${created.id} later for the report.`,
    );
  },
});

export const listAgentRuns = defineTool({
  name: 'list_agent_runs',
  title: 'List agent runs',
  summary: 'List agent runs (question, status, confidence, pinned, label), newest first.',
  description:
    'Lists agent runs created with this account: id, status, question, mode, time window, confidence, pinned, label, dates. Reports are not included (use get_agent_run). ' +
    'Filter by status or user_id; page with limit (1–100, default 50) and offset.',
  scope: 'agent:read',
  input: z.strictObject({
    status: z.enum(RUN_STATUSES).optional().describe('Only runs in this state.'),
    user_id: z.string().min(1).max(200).optional().describe('Only runs of this upstream user id.'),
    limit: z.number().int().min(1).max(100).optional().describe('Runs per page, 1–100 (default 50).'),
    offset: z.number().int().min(0).optional().describe('Runs to skip (default 0).'),
  }),
  output: z.looseObject({
    runs: z.array(z.looseObject({})),
    total: z.number().nullish(),
    limit: z.number().nullish(),
    offset: z.number().nullish(),
  }),
  annotations: READ,
  team: { list: 'run', userArg: 'user_id' },
  async run(args, ctx) {
    const list = await ctx.upstream.listRuns(ctx.creds, compact(args), { signal: ctx.signal });
    return {
      data: list,
      summary: `${list.runs.length} of ${String(list.total ?? list.runs.length)} agent run(s).`,
    };
  },
});

export const getAgentRun = defineTool({
  name: 'get_agent_run',
  title: 'Get an agent run',
  summary: 'Status, progress and (when completed) the full report of one agent run.',
  description:
    'Reads one agent run: status, progress while running, and when completed the report (confidence, signals, evidence links, markdown) and usage. Does not wait.',
  scope: 'agent:read',
  input: z.strictObject({ run_id: uuidArg('agent run'), include_html: includeHtmlArg.optional() }),
  output: runOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const record = await ctx.upstream.getRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return runResult(
      record,
      args.include_html === true,
      isTerminal(record.status) ? undefined : 'Call get_agent_run again in a little while.',
    );
  },
});

export const cancelAgentRun = defineTool({
  name: 'cancel_agent_run',
  title: 'Cancel an agent run',
  summary: 'Stop a pending or running agent run (it ends as failed).',
  description:
    'Cancels a pending or running agent run; it ends in state failed. Completed or failed runs cannot be cancelled.',
  scope: 'agent:write',
  input: z.strictObject({ run_id: uuidArg('agent run') }),
  output: z.looseObject({ id: z.string(), status: z.string().nullish(), cancelled: z.boolean().nullish() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.cancelRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return { data: { id: args.run_id, ...result }, summary: `Agent run ${args.run_id} cancelled.` };
  },
});

export const rerunAgentRun = defineTool({
  name: 'rerun_agent_run',
  title: 'Rerun an agent run',
  summary: 'Start a failed, waiting or running agent run again (not completed ones).',
  description:
    'Re-enqueues an agent run that failed, is waiting or is running (a running run is cancelled first). Completed runs cannot be rerun: start a new run instead. ' +
    'Returns immediately with status pending; follow it with get_agent_run. Spends agent credits.',
  scope: 'agent:write',
  input: z.strictObject({ run_id: uuidArg('agent run') }),
  output: z.looseObject({ id: z.string(), status: z.string().nullish() }),
  annotations: { ...CREATE, idempotentHint: false },
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.rerunRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return {
      data: { id: args.run_id, ...result },
      summary: `Agent run ${args.run_id} re-enqueued (${String(result.status ?? 'pending')}). Call get_agent_run later for the report.`,
    };
  },
});

export const updateAgentRun = defineTool({
  name: 'update_agent_run',
  title: 'Rename or pin an agent run',
  summary: 'Set the label and/or pinned flag of an agent run.',
  description: "Sets a run's label and/or pinned flag (at least one of them).",
  scope: 'agent:write',
  input: z
    .strictObject({
      run_id: uuidArg('agent run'),
      pinned: z.boolean().optional().describe('Pin (true) or unpin (false) the run.'),
      label: z.string().max(200).optional().describe('A short label for the run.'),
    })
    .refine((a) => a.pinned !== undefined || a.label !== undefined, {
      message: 'give pinned, label or both',
    }),
  output: z.looseObject({ id: z.string(), pinned: z.boolean().nullish(), label: z.string().nullish() }),
  annotations: UPDATE,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const { run_id, ...body } = args;
    const result = await ctx.upstream.updateRun(ctx.creds, run_id, compact(body), { signal: ctx.signal });
    return { data: { id: run_id, ...result }, summary: `Agent run ${run_id} updated.` };
  },
});

export const deleteAgentRun = defineTool({
  name: 'delete_agent_run',
  title: 'Delete an agent run',
  summary: 'Delete a completed or failed agent run from the lists.',
  description:
    'Deletes (discards) a completed or failed agent run; it disappears from list_agent_runs. Pending or running runs must be cancelled first.',
  scope: 'agent:write',
  input: z.strictObject({ run_id: uuidArg('agent run') }),
  output: z.looseObject({ id: z.string(), discarded: z.boolean().nullish() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.deleteRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return { data: { id: args.run_id, ...result }, summary: `Agent run ${args.run_id} deleted.` };
  },
});

export const agentRunTools: ToolDef[] = [
  startAgentRun,
  listAgentRuns,
  getAgentRun,
  cancelAgentRun,
  rerunAgentRun,
  updateAgentRun,
  deleteAgentRun,
];
