import { z } from 'zod';
import { clip, typedFence } from '../results/fence.js';
import { runListOutput } from '../results/lists.js';
import { isTerminal } from '../results/runs.js';
import { runResult, runWork, settleRun, startInput } from './agent-run-work.js';
import { compact, detailArg, text, uuidArg } from './common.js';
import { nextCall, outputOf, startThenSettle, waitArg } from './long-work.js';
import { runOutputSchema, uuidRecord } from './output-schemas.js';
import { CREATE, DESTROY, defineTool, type LongWork, READ, type ToolDef, UPDATE } from './types.js';

const NOT_FOUND = { what: 'agent run', listTool: 'list_agent_runs' };
export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'waiting'] as const;

export const startAgentRun = defineTool({
  name: 'start_agent_run',
  title: 'Ask the research agent',
  summary:
    'Ask a plain-English question; the agent researches social platforms and returns a structured report.',
  description:
    'Researches a question across social platforms and writes a report (signals, evidence, confidence) in 3–5 min. Spends up to available_credits agent credits.',
  scope: 'agent:write',
  toolset: 'agent_runs',
  spendsCredits: true,
  view: 'agent-run',
  input: startInput,
  output: runOutputSchema,
  annotations: CREATE,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'parent_run_id' },
  waits: true,
  work: runWork as LongWork,
  run: (args, ctx) => startThenSettle('start_agent_run', runWork, args, ctx),
});

const listInput = {
  limit: z.number().int().min(1).max(100).optional().describe('Default 50.'),
  offset: z.number().int().min(0).optional(),
};

export const listAgentRuns = defineTool({
  name: 'list_agent_runs',
  title: 'List agent runs',
  summary: 'List agent runs (question, status, confidence, pinned, label), newest first.',
  description: 'Agent runs of this account: question, status, confidence, label, dates. Free.',
  scope: 'agent:read',
  toolset: 'agent_runs',
  spendsCredits: false,
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
    return runListOutput(list, list.runs, ctx.creds.userId);
  },
});

export const getAgentRun = defineTool({
  name: 'get_agent_run',
  title: 'Get an agent run',
  summary: 'Status, progress and (when completed) the full report of one agent run.',
  description: 'Reads one agent run: progress, or the report once completed. Free.',
  scope: 'agent:read',
  toolset: 'agent_runs',
  spendsCredits: false,
  view: 'agent-run',
  input: z.strictObject({ run_id: uuidArg, detail: detailArg.optional(), wait: waitArg }),
  output: runOutputSchema,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'run', idArg: 'run_id' },
  waits: 'on request',
  async run(args, ctx) {
    const record = await ctx.upstream.getRun(ctx.creds, args.run_id, { signal: ctx.signal });
    const waitMs = ctx.options.runMaxWaitMs;
    if (isTerminal(record.status)) return runResult(record, args);
    if (args.wait) return settleRun(ctx, { id: record.id, initial: record }, args, waitMs).then(outputOf);
    return runResult(record, args, nextCall('get_agent_run', 'run_id', record.id, waitMs));
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
  spendsCredits: false,
  input: runIdInput,
  output: z.looseObject({ id: z.string(), status: z.string().optional(), cancelled: z.boolean().optional() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.cancelRun(ctx.creds, args.run_id, { signal: ctx.signal });
    // A cancelled run is never the answer to a later identical start_agent_run.
    await ctx.reuse?.seen('run', args.run_id, 'failed');
    return {
      data: { id: args.run_id, ...result },
      text: `Agent run ${args.run_id} cancelled: it ends as ${String(result.status ?? 'failed')}.`,
    };
  },
});

export const rerunAgentRun = defineTool({
  name: 'rerun_agent_run',
  title: 'Rerun an agent run',
  summary: 'Start a failed, waiting or running agent run again (not completed ones).',
  description: 'Starts a failed, waiting or running run again, without waiting. Spends agent credits.',
  scope: 'agent:write',
  toolset: 'agent_runs',
  spendsCredits: true,
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
  spendsCredits: false,
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
    const now = [
      typeof result.pinned === 'boolean' ? (result.pinned ? 'pinned' : 'not pinned') : null,
      typeof result.label === 'string' ? 'labelled as below' : null,
    ].filter(Boolean);
    const label = typeof result.label === 'string' ? typedFence([`Label: ${clip(result.label, 200)}`]) : '';
    return {
      data: { id: run_id, ...result },
      text: [`Agent run ${run_id} updated${now.length ? `: ${now.join(', ')}` : ''}.`, label]
        .filter(Boolean)
        .join('\n'),
      untrusted: true,
    };
  },
});

export const deleteAgentRun = defineTool({
  name: 'delete_agent_run',
  title: 'Delete an agent run',
  summary: 'Delete a completed or failed agent run from the lists.',
  description: 'Deletes a completed or failed agent run from the lists (cancel a running one first).',
  scope: 'agent:write',
  toolset: 'agent_runs',
  spendsCredits: false,
  input: runIdInput,
  output: z.looseObject({ id: z.string(), discarded: z.boolean().optional() }),
  annotations: DESTROY,
  notFound: NOT_FOUND,
  team: { change: 'run', idArg: 'run_id' },
  async run(args, ctx) {
    const result = await ctx.upstream.deleteRun(ctx.creds, args.run_id, { signal: ctx.signal });
    return {
      data: { id: args.run_id, ...result },
      text: `Agent run ${args.run_id} deleted: it no longer appears in lists.`,
    };
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
