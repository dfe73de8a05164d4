import { z } from 'zod';
import type { RunRecord } from '../../upstream/schemas.js';
import type { Detail } from '../results/result-output.js';
import { isTerminal, runOutput } from '../results/runs.js';
import { type WaitOutcome, waitFor, whyUnfinished } from '../waiting/wait.js';
import { compact, detailArg, KEYWORD_PLATFORMS, maxPostArg, text, uuidArg } from './common.js';
import { listedJobs } from './listed-jobs.js';
import { announce, forceNewArg, nextCall, seenState, waitBudget } from './long-work.js';
import type { LongWork, Settled, StartedJob, ToolContext, ToolOutput } from './types.js';

/**
 * An agent run as long work (./long-work.ts): start_agent_run's arguments, the run created, and the
 * run settled (waited for up to a limit, then its report or where it stands), which get_agent_run's
 * `wait` uses too. The agent-run tools themselves are in ./agent-runs.ts.
 */

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
  .describe('Per-run budget, not the balance; 1 per internal search (default 4).');
export const platformsArg = z.array(z.enum(KEYWORD_PLATFORMS)).min(1).describe('X is twitter.');

/** A run as a result; `nextStep` says what to call when it has not ended. */
export function runResult(run: RunRecord, args: { detail?: Detail | undefined }, nextStep?: string) {
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

export const startInput = z.strictObject({
  question: text(2000),
  mode: modeArg.optional(),
  time_window: timeWindowArg.optional(),
  available_credits: creditsArg.optional(),
  platforms: platformsArg.optional(),
  max_post: maxPostArg.optional(),
  parent_run_id: uuidArg.optional().describe('A run this one follows up on.'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Free JSON kept with the run.'),
  detail: detailArg.optional(),
  force_new: forceNewArg,
});

type StartArgs = z.output<typeof startInput>;

/**
 * Settles an agent run: waits up to `waitMs`, then its report (or where it stands). Nothing that ends
 * the wait cancels the run upstream (runAfterWait). The answer
 * is made in a continuation of the wait; its closures keep the id, not the record (heap per waiting call).
 */
export function settleRun(
  ctx: ToolContext,
  job: StartedJob,
  args: { detail?: Detail | undefined },
  waitMs: number,
): Promise<Settled> {
  const id = String(job.id);
  return waitFor(ctx, {
    key: `run:${id}`,
    initial: (job.initial as RunRecord | undefined) ?? { id, status: 'pending' },
    poll: (signal, deadline) => ctx.upstream.getRun(ctx.creds, id, { signal, deadline }),
    isDone: runEnded,
    progress: runProgress,
    ...waitBudget(ctx, waitMs),
    announce: announce('run', id, waitMs, job.fresh === true),
  }).then((outcome) => ({
    output: runAfterWait(ctx, id, outcome, args, waitMs),
    ended: outcome.kind,
    failed: outcome.kind === 'done' && outcome.record.status === 'failed',
  }));
}

/** An agent run as long work (./long-work.ts): created, then waited for. */
export const runWork: LongWork<StartArgs> = {
  kind: 'run',
  limit: 'runMaxWaitMs',
  identity: (a) => ({
    question: a.question,
    mode: a.mode ?? 'trend_briefing',
    time_window: a.time_window ?? '7d',
    available_credits: a.available_credits ?? 4,
    platforms: a.platforms ? [...a.platforms].sort() : null,
    max_post: a.max_post ?? null,
    parent_run_id: a.parent_run_id ?? null,
    metadata: a.metadata ?? null,
  }),
  async start(args, ctx) {
    const { detail: _detail, force_new: _forceNew, ...body } = args;
    const created = await ctx.upstream.createRun(ctx.creds, compact(body), { signal: ctx.signal });
    return { id: created.id, initial: created, fresh: true };
  },
  find: async (args, ctx) => {
    const query = { user_id: ctx.creds.userId, limit: 100 };
    const list = await ctx.upstream.listRuns(ctx.creds, query, { signal: ctx.signal });
    const mode = args.mode ?? 'trend_briefing';
    return listedJobs(
      list.runs,
      (r) => r.question === args.question && (typeof r.mode !== 'string' || r.mode === mode),
    );
  },
  settle: (job, args, ctx, waitMs) => settleRun(ctx, job, args, waitMs),
};

/**
 * A run's answer once the wait is over. Whatever ended the wait, the run goes on upstream: only
 * cancel_agent_run and tasks/cancel cancel it. A `notifications/cancelled` for this call means the
 * client stopped waiting (the SDKs send one on their own request time-out), not that the work is unwanted.
 */
function runAfterWait(
  ctx: ToolContext,
  runId: string,
  outcome: WaitOutcome<RunRecord>,
  args: { detail?: Detail | undefined },
  waitMs: number,
): ToolOutput {
  if (outcome.kind === 'done' || outcome.kind === 'timeout')
    void ctx.reuse?.seen('run', runId, seenState(outcome, outcome.record.status === 'failed'));
  if (outcome.kind === 'done') return runResult(outcome.record, args);
  return runResult(
    outcome.record,
    args,
    `${whyUnfinished(outcome, 'run')} ${nextCall('get_agent_run', 'run_id', runId, waitMs)}`,
  );
}
