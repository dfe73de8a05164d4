import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import { newId } from '../../security/tokens.js';
import { otel } from '../../telemetry/index.js';
import type { UpstreamCredentials } from '../../upstream/client.js';
import { readTaskArgs, withArgNotes } from '../catalog/arg-words.js';
import { failedOutcome, shapedOutcome } from '../catalog/model-outcome.js';
import { credentialSource } from '../catalog/tool-errors.js';
import type { CatalogDeps, ToolOutcome } from '../catalog/types.js';
import { jobName, withReuseNotice } from '../tools/long-work.js';
import type { LongWork, ProgressUpdate, Settled, StartedJob, ToolContext, ToolDef } from '../tools/types.js';
import { credentialScope } from '../waiting/wait.js';
import { sharedJobKey } from '../waiting/wait-request.js';
import { endedMessage, taskResult, workingMessage } from './task-result.js';
import type { TaskRow, TaskStore } from './task-store.js';
import { pollIntervalMs } from './task-view.js';

export interface TaskRunnerDeps {
  store: TaskStore;
  catalog: CatalogDeps;
  logger: Logger;
  serverInfo: { name: string; version: string };
  /** The tool a task runs, by name (its long work), or undefined for a name no longer known. */
  toolByName(name: string): ToolDef | undefined;
  /** The credential a task's owner calls upstream with now: null when they no longer may. */
  credentialsOf(row: TaskRow): Promise<UpstreamCredentials | null>;
  /** How long a claim on a task holds without renewal (renewed every third of it). */
  leaseMs: number;
  /** How long a task is kept once it ended. */
  retentionMs: number;
  /** How long a task's work is waited for at most; then it completes with where the work stands. */
  maxWorkMs: number;
  now?: () => number;
}

/** Status writes of one working task, at most one per this (the clients poll every few seconds). */
const STATUS_WRITE_MS = 2_000;
/** Wait before reading a job again after its status could not be read. */
const UNREADABLE_BACKOFF_MS = 15_000;

/** A task this instance settles: its row as last known, and how to stop its wait. */
export class RunningTask {
  readonly controller = new AbortController();
  lastWrite = 0;
  reports = 0;
  /** The scheduler's key of its job (../waiting/wait-scheduler.ts:plannedPoll), made once. */
  readonly sharedKey: string;

  constructor(
    public row: TaskRow,
    readonly def: ToolDef,
    readonly work: LongWork,
    readonly args: Record<string, unknown>,
    readonly creds: UpstreamCredentials,
    /** How its arguments were read (`X` as twitter): said at the top of its answer, as a call's. */
    readonly notes: readonly string[] = [],
  ) {
    this.sharedKey = sharedJobKey(credentialScope(creds), `${row.jobKind}:${row.jobId}`);
  }
}

/**
 * Settles tasks in the background (the second phase of their long work, ../tools/long-work.ts) on the
 * shared wait scheduler, with no request open. Each instance settles the tasks it holds a lease on:
 * it renews its leases every third of their length, takes over working tasks whose lease ran out (an
 * instance stopped or crashed) at start and on every renewal, and gives its own up at shutdown, so a
 * task created on one instance completes on another, and after a restart. A task ends once: every
 * ending write is conditional on the task still working (../tasks/task-store.ts).
 */
export class TaskRunner {
  readonly instanceId = newId();
  private readonly running = new Map<string, RunningTask>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly deps: TaskRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Takes over tasks left by stopped instances now, then renews and takes over periodically. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.deps.leaseMs / 3)));
    this.timer.unref();
  }

  /** Stops renewing and gives up this instance's leases (the waits end on the catalog's shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.deps.store
      .release(this.instanceId)
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'could not release task leases'));
  }

  /** The task this instance settles, when it does. */
  local(idHash: string): RunningTask | undefined {
    return this.running.get(idHash);
  }

  /** A lease that ends this long from now. */
  leaseUntil(): number {
    return this.now() + this.deps.leaseMs;
  }

  /** How long this task's clients should wait before polling again. */
  pollInterval(task: RunningTask): number {
    const planned = this.deps.catalog.waits.plannedPoll(task.sharedKey);
    return pollIntervalMs(planned ?? null, this.now(), this.deps.catalog.options.pollMaxMs);
  }

  /** Settles a task this instance just created (or claimed) in the background. */
  begin(task: RunningTask, job: StartedJob): void {
    this.running.set(task.row.id, task);
    // With telemetry on, the work is a span of its own trace, linked to the request that created it.
    const work = otel.on
      ? otel.t.taskWork(task.def.name, () => this.settle(task, job))
      : this.settle(task, job);
    const done = work.catch((err: unknown) => {
      this.deps.logger.error({ err, tool: task.def.name }, 'settling a task failed');
    });
    const { running } = this.deps.catalog;
    running.add(done);
    void done.finally(() => {
      running.delete(done);
      if (this.running.get(task.row.id) === task) this.running.delete(task.row.id);
    });
  }

  /**
   * Stops settling a task that ended elsewhere (cancelled, taken over): nothing is written. It stops
   * being local at once, so a read that follows the ending reads the stored row, not this copy.
   */
  drop(idHash: string): void {
    this.running.get(idHash)?.controller.abort(new Error('the task ended elsewhere'));
    this.running.delete(idHash);
  }

  /** Takes over one task whose lease ran out (a tasks/get found it so), unless another did first. */
  async claim(row: TaskRow): Promise<void> {
    if (this.stopped || this.running.has(row.id)) return;
    const claimed = await this.deps.store.claim(row, this.instanceId, this.leaseUntil());
    if (claimed) await this.resume(claimed);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.deps.store.renew(this.instanceId, this.leaseUntil());
      for (const id of this.running.keys()) if (!held.has(id)) this.drop(id);
      const claimed = await this.deps.store.claimExpired(this.instanceId, this.leaseUntil(), this.now());
      for (const row of claimed) await this.resume(row);
    } catch (err) {
      this.deps.logger.warn({ err }, 'renewing or taking over task leases failed');
    }
  }

  /** Settles a claimed task again from its row: its tool, arguments and the owner's credential now. */
  private async resume(row: TaskRow): Promise<void> {
    const def = this.deps.toolByName(row.tool);
    const creds = def?.work ? await this.deps.credentialsOf(row) : null;
    const kind = row.jobKind === 'run' ? 'run' : 'search';
    if (!def?.work || !creds) {
      const text = `The ${kind} ${row.jobId} can no longer be read with this connection's credential.`;
      await this.finish(row, { ok: false, text, reason: 'no_credentials' });
      return;
    }
    const job: StartedJob = { id: row.jobKind === 'run' ? row.jobId : Number(row.jobId) };
    const { args, notes } = readTaskArgs(row.args);
    this.begin(new RunningTask(row, def, def.work, args, creds, notes), job);
  }

  private async settle(task: RunningTask, first: StartedJob): Promise<void> {
    const { catalog } = this.deps;
    const ctx: ToolContext = {
      upstream: catalog.upstream,
      creds: task.creds,
      signal: task.controller.signal,
      stopWaiting: catalog.stopWaiting,
      progress: (update) => this.progress(task, update),
      options: catalog.options,
      waits: catalog.waits,
      ...(catalog.reuse ? { reuse: catalog.reuse } : {}),
    };
    let job = first;
    for (;;) {
      const deadline = task.row.createdAt + this.deps.maxWorkMs;
      let settled: Settled;
      try {
        settled = await task.work.settle(job, task.args, ctx, Math.max(0, deadline - this.now()));
      } catch (error) {
        const credentials = credentialSource(undefined, catalog.publicUrl, catalog.tokenHeader);
        await this.finish(task.row, failedOutcome(error, task.def, credentials, this.deps.logger));
        return;
      }
      // Shutdown, or ended elsewhere: another instance (or this one restarted) goes on from the row.
      if (catalog.stopWaiting.aborted || task.controller.signal.aborted) return;
      if (task.row.reusedAgeMs !== null && settled.ended === 'done' && settled.failed) {
        // Reused work found failed is never the answer (docs/long-running-calls.md): it is forgotten,
        // so the same call made again starts it anew, and the task says so.
        await catalog.reuse?.seen(task.work.kind, job.id, 'failed');
        await this.finish(task.row, reusedFailed(task));
        return;
      }
      const out = withArgNotes(
        task.row.reusedAgeMs === null ? settled.output : this.noticed(task, settled.output),
        task.notes,
      );
      if (settled.ended === 'done' || this.now() >= deadline) {
        await this.finish(task.row, shapedOutcome(out, catalog.options.maxResultTokens));
        return;
      }
      // The job's status could not be read (upstream down): the work may be fine; read it again later.
      await sleep(UNREADABLE_BACKOFF_MS, undefined, {
        signal: AbortSignal.any([ctx.signal, catalog.stopWaiting]),
      }).catch(() => {});
      if (catalog.stopWaiting.aborted || task.controller.signal.aborted) return;
      job = { id: job.id };
    }
  }

  private noticed(task: RunningTask, output: Settled['output']) {
    const reused = { ageMs: task.row.reusedAgeMs ?? 0 };
    return withReuseNotice(output, task.def.name, task.work.kind, task.row.jobId, reused);
  }

  /** A progress report: kept in memory, and written for other instances at most every few seconds. */
  private progress(task: RunningTask, update: ProgressUpdate): void {
    // The first report names the job for a waiting client; the task's clients have its id already.
    const first = task.reports++ === 0;
    const now = this.now();
    const statusMessage = workingMessage(
      task.work.kind,
      task.row.jobId,
      first ? { ...update, message: '' } : update,
    );
    task.row = { ...task.row, statusMessage, updatedAt: now };
    if (now - task.lastWrite < STATUS_WRITE_MS) return;
    task.lastWrite = now;
    // After the scheduler has planned the job's next read (it does so right after reporting).
    queueMicrotask(() => {
      const nextPollAt = now + this.pollInterval(task);
      task.row = { ...task.row, nextPollAt };
      this.deps.store.progress(task.row.id, { statusMessage, updatedAt: now, nextPollAt }).then(
        (working) => {
          if (!working) this.drop(task.row.id);
        },
        (err: unknown) => this.deps.logger.warn({ err }, 'could not write a task status'),
      );
    });
  }

  /** Ends a working task with its result (or an error result), unless it ended first elsewhere. */
  private async finish(row: TaskRow, outcome: ToolOutcome): Promise<void> {
    if (otel.on) otel.t.mark(outcome);
    const now = this.now();
    const ended = await this.deps.store.end(row.id, {
      status: 'completed',
      statusMessage: endedMessage(row.jobKind as LongWork['kind'], row.jobId, outcome),
      result: JSON.stringify(taskResult(outcome, this.deps.serverInfo)),
      updatedAt: now,
      expiresAt: now + this.deps.retentionMs,
    });
    if (!ended) this.deps.logger.debug({ tool: row.tool }, 'a task had ended before its work did');
  }
}

/** The end of a task whose reused work had failed: not that failure, but how to start it anew. */
function reusedFailed(task: RunningTask): ToolOutcome & { ok: false } {
  const what = `${jobName(task.work.kind)} ${task.row.jobId}`;
  return {
    ok: false,
    text: `The identical ${what} this call was answered with had ended failed, so it is not the result and it will not be reused again. Call ${task.def.name} again with the same arguments to start a new one.`,
    reason: 'reused_failed',
  };
}
