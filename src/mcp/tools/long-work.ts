import { z } from 'zod';
import type {
  JobKind,
  LongWork,
  Reused,
  SeenState,
  Settled,
  StartedJob,
  ToolContext,
  ToolOptions,
  ToolOutput,
} from './types.js';

/**
 * Tools that create long upstream work (searches take minutes, agent runs 3–5), in two phases:
 *
 * - start: creates the upstream work and never waits; the job's id (and its first record);
 * - settle: waits up to a limit for a job given its id, then shapes the result exactly as the tool
 *   returns it (finished or not).
 *
 * A tool call is start then settle; a get tool's `wait` argument settles an id it is given; a task
 * (the tasks extension) starts in the tools/call and settles in the background, again after a restart.
 */

/**
 * The argument that skips reuse, on every tool with long work. Described in a few words: read as a
 * plain refresh it would spend credits a reuse saves (every word here is in every model's context).
 */
export const forceNewArg = z.boolean().optional().describe('Runs anew, spending credits.');

/**
 * The get tools' argument that waits again, up to the same limit as the submit; every result that
 * needs it spells out the call (`nextCall`), and its few words say it waits rather than how long.
 */
export const waitArg = z.boolean().optional().describe('Waits like a submit.');

/** The first phase: the work created, or the identical recent submit's found (ctx.reuse). */
export function startWork<A>(
  tool: string,
  work: LongWork<A>,
  args: A,
  ctx: ToolContext,
): Promise<{ job: StartedJob; reused: Reused | null }> {
  return ctx.reuse
    ? ctx.reuse.start(tool, work, args, ctx)
    : work.start(args, creating(ctx)).then((job) => ({ job, reused: null }));
}

/**
 * The context an upstream create runs in: the client's abort does not reach it. A create cut off
 * mid-request may still have made the work upstream, out of anyone's sight; a client that stopped
 * waiting has not asked for the work to go (only cancel_agent_run and tasks/cancel do). The upstream
 * client's own per-request timeout still bounds it.
 */
export function creating(ctx: ToolContext): ToolContext {
  // A signal of its own that never aborts: one shared by every create would collect the upstream
  // client's listeners of all creates in flight.
  return { ...ctx, signal: new AbortController().signal };
}

/**
 * A tool call of long work: started (or reused), then settled within the call's wait limit. Reused
 * work found failed (cancelled upstream, or failed while nobody looked) is not the answer: it is
 * forgotten and the work started anew, once, and the answer says so.
 */
export function startThenSettle<A extends { force_new?: boolean | undefined }>(
  tool: string,
  work: LongWork<A>,
  args: A,
  ctx: ToolContext,
): Promise<ToolOutput> {
  const limit = waitLimit(work, ctx.options);
  return startWithinLimit(tool, work, args, ctx).then(async ({ job, reused }) => {
    const settled = await work.settle(job, args, ctx, limit);
    if (!reused) return settled.output;
    if (!settled.failed || !ctx.reuse)
      return withReuseNotice(settled.output, tool, work.kind, job.id, reused);
    await ctx.reuse.seen(work.kind, job.id, 'failed');
    const again = await startWork(tool, work, args, ctx);
    const out = (await work.settle(again.job, args, ctx, limit)).output;
    const note = `An identical ${jobName(work.kind)} ${job.id} had ended failed, so it was not reused: this is ${again.reused ? 'the one started since' : 'a new one'}.`;
    return { ...out, text: `${note}\n\n${out.text}` };
  });
}

/**
 * Of a call's wait limit, what is kept back for the last poll's answer and for building and sending
 * the answer: a tenth, at most 2 s (45 s: the wait ends 43 s after the request arrived, its last poll
 * may take 1 s more, and 1 s is left to answer).
 */
export function reserveMs(limitMs: number): number {
  return Math.min(2_000, Math.round(limitMs / 10));
}

/**
 * A settle's wait (the scheduler's maxWaitMs and lastPollMs) within the call's limit, counted from the
 * request's arrival: what the create and the checks before it took is no longer waited.
 */
export function waitBudget(ctx: ToolContext, limitMs: number): { maxWaitMs: number; lastPollMs: number } {
  const reserve = reserveMs(limitMs);
  const left = (ctx.arrivedAt ?? Date.now()) + limitMs - reserve - Date.now();
  return { maxWaitMs: Math.max(0, left), lastPollMs: Math.round(reserve / 2) };
}

/**
 * When a call of this limit must have all its upstream answers (epoch ms): half the reserve before
 * the limit, leaving the other half to build and send the answer. Undefined without an arrival (a
 * task's background settle): no call waits on it.
 */
export function answerBy(ctx: ToolContext, limitMs: number): number | undefined {
  if (ctx.arrivedAt === undefined) return undefined;
  return ctx.arrivedAt + limitMs - Math.round(reserveMs(limitMs) / 2);
}

/** A create the upstream did not answer before the call's limit; it goes on in the background. */
export class StillCreating extends Error {
  readonly kind = 'still_creating';
  constructor(tool: string, kind: JobKind) {
    super(
      `The upstream is slow: the ${jobName(kind)} is still being created, and that goes on in the background (nothing is lost). In a minute, call ${tool} again with the same arguments: it answers with that ${jobName(kind)} and spends nothing more.`,
    );
    this.name = 'StillCreating';
  }
}

/**
 * A create whose answer was lost (reset, time-out, a 5xx or an unreadable answer: the work may exist
 * upstream) and whose work could not be looked for in the caller's list upstream either. Nothing is
 * created again until a look finds it missing (../reuse/recent-submits.ts).
 */
export class CreateOutcomeUnknown extends Error {
  readonly kind = 'create_outcome_unknown';
  constructor(tool: string, kind: JobKind) {
    super(
      `The upstream lost its answer to creating the ${jobName(kind)} and cannot be asked yet whether it exists; nothing is lost and nothing was paid twice. In a minute, call ${tool} again with the same arguments: it finds that ${jobName(kind)} or creates it once.`,
    );
    this.name = 'CreateOutcomeUnknown';
  }
}

/**
 * The first phase within the call's wait limit, counted from the request's arrival: past it the call
 * answers StillCreating and the create goes on in the background (a task's create call too).
 */
export function startWithinLimit<A>(
  tool: string,
  work: LongWork<A>,
  args: A,
  ctx: ToolContext,
): Promise<{ job: StartedJob; reused: Reused | null }> {
  const limit = waitLimit(work, ctx.options);
  return startInTime(tool, work, args, ctx, (ctx.arrivedAt ?? Date.now()) + limit - reserveMs(limit));
}

/**
 * The start (reuse or create) raced against the call's limit. A create still going at `startBy` is
 * left to finish in the background under its reuse record (reserved before the upstream call), so
 * the next identical submit finds it instead of creating a second; the call answers StillCreating.
 * A caller only waiting for another's reservation stops waiting then.
 */
function startInTime<A>(
  tool: string,
  work: LongWork<A>,
  args: A,
  ctx: ToolContext,
  startBy: number,
): Promise<{ job: StartedJob; reused: Reused | null }> {
  // One timer for the limit: it ends the start's own waiting (another's reservation) and the call's.
  const limit = new AbortController();
  const follow = () => limit.abort(ctx.signal.reason);
  const late = setTimeout(() => limit.abort(), Math.max(0, startBy - Date.now()));
  if (ctx.signal.aborted) follow();
  else ctx.signal.addEventListener('abort', follow, { once: true });
  const done = () => {
    clearTimeout(late);
    ctx.signal.removeEventListener('abort', follow);
  };
  const timedOut = () => limit.signal.aborted && !ctx.signal.aborted;
  return new Promise((resolve, reject) => {
    limit.signal.addEventListener('abort', () => timedOut() && reject(new StillCreating(tool, work.kind)), {
      once: true,
    });
    startWork(tool, work, args, { ...ctx, signal: limit.signal }).then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(timedOut() ? new StillCreating(tool, work.kind) : error);
      },
    );
  });
}

/** How a wait saw its job, for reuse: only work still running or ended with its result is reused. */
export function seenState(outcome: { kind: string }, failed: boolean): SeenState {
  if (outcome.kind !== 'done') return 'running';
  return failed ? 'failed' : 'ended';
}

/** A settle's result, for a caller that needs no more (a get tool's `wait`). */
export const outputOf = (settled: Settled): ToolOutput => settled.output;

export function waitLimit(work: { limit: LongWork['limit'] }, options: ToolOptions): number {
  return options[work.limit];
}

const NAMES: Record<JobKind, string> = {
  keyword_search: 'keyword search',
  user_search: 'user search',
  expert_search: 'expert search',
  run: 'agent run',
};

export function jobName(kind: JobKind): string {
  return NAMES[kind];
}

/** "3 min" / "40 s": how long ago, in words a model reads at a glance. */
function ago(ms: number): string {
  return ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}

/** The first line of a reused submit's result: what it is, that nothing was spent, how to force a new one. */
export function withReuseNotice(
  out: ToolOutput,
  tool: string,
  kind: JobKind,
  id: string | number,
  reused: Reused,
): ToolOutput {
  const notice = `Same arguments as ${jobName(kind)} ${id}, submitted ${ago(reused.ageMs)} ago: this is that one, nothing new was spent. To run it again anyway, call ${tool} with force_new: true.`;
  return { ...out, text: `${notice}\n\n${out.text}`, data: { ...out.data, reused: true } };
}

/** The exact next call for work that has not ended: the get tool, its id and `wait: true`. */
export function nextCall(getTool: string, idArg: string, id: string | number, waitMs: number): string {
  return `Call ${getTool} with ${idArg} ${JSON.stringify(id)} and wait true to wait up to ${Math.round(waitMs / 1000)} s more.`;
}

/** The first progress message of a wait: names the job, so a client that gives up still knows it. */
export function announce(kind: JobKind, id: string | number, waitMs: number, started: boolean): string {
  const what = `${jobName(kind)} ${id}`;
  return `${started ? `${what} created` : `waiting for ${what}`}; waiting up to ${Math.round(waitMs / 1000)} s`;
}

/** `today` (YYYY-MM-DD) minus whole days, in UTC. */
export function daysBefore(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

/** `today` (YYYY-MM-DD) a calendar month earlier, in UTC (a deterministic reading of "a month ago"). */
export function monthBefore(today: string): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return d.toISOString().slice(0, 10);
}
