import { loadUpstreamCredential } from '../../accounts/credentials.js';
import type { ToolCallAudit } from '../../audit/tool-calls.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import type { Logger } from '../../logger.js';
import type { SecretBox } from '../../security/secrets.js';
import { auditIdentity, type Caller, type MemberCaller } from '../auth/caller.js';
import { storedTaskArgs } from '../catalog/arg-words.js';
import type { AdmittedCall } from '../catalog/execute.js';
import type { CatalogDeps } from '../catalog/types.js';
import { jobName } from '../tools/long-work.js';
import type { Reused, StartedJob, ToolDef } from '../tools/types.js';
import { isTaskId, TaskIds } from './task-ids.js';
import { TaskLimits } from './task-limits.js';
import { RunningTask, TaskRunner } from './task-runner.js';
import { type TaskRow, TaskStore } from './task-store.js';
import { pollIntervalMs, type TaskView, taskGetFields, taskView } from './task-view.js';

export interface TasksDeps {
  db: Store;
  config: Config;
  secrets: SecretBox;
  catalog: CatalogDeps;
  logger: Logger;
  /**
   * Writes a task request's audit row, as a tool call's is written, without the answer waiting for it
   * (../../audit/batched.ts: tasks/get is repeated by every working task's client). `repeated` names the
   * task of its owner's successful read: the first of a window is written, the rest counted
   * (../../audit/repeated-reads.ts).
   */
  audit(event: ToolCallAudit, repeated?: string): void;
  /** The owner's successful read of a task counted into its window's audit row: true, or write it. */
  countRead(task: string, durationMs: number): boolean;
  serverInfo: { name: string; version: string };
  toolByName(name: string): ToolDef | undefined;
  /** How long a claim on a task's background work holds without renewal (TASK_LEASE_SECONDS). */
  leaseMs: number;
  /** How long an ended task is kept (TASK_RETENTION_HOURS). */
  retentionMs: number;
  /** How long a task's work is waited for at most. */
  maxWorkMs: number;
  now?: () => number;
}

/** A task that could not be stored: its person or workspace is at the working limit (./task-limits.ts). */
export class TaskLimitReached extends Error {}

/** What a task's reader is told: the tasks/get result's members as JSON text (./task-view.ts:taskGetFields). */
export interface FoundTask {
  fields: string;
}

/**
 * The tasks extension's tasks (SEP-2663) on this server: created for a tools/call of long work whose
 * request declared the extension, stored before the answer, settled in the background by the instance
 * holding its lease (./task-runner.ts), read, cancelled and acknowledged for its owner alone. A task
 * belongs to the person, app and workspace that created it; any other caller, and an unknown or
 * expired id, meet the same "not found". Reads and cancels are audited like tool calls.
 */
export class Tasks {
  readonly store: TaskStore;
  readonly runner: TaskRunner;
  readonly limits: TaskLimits;
  private readonly ids: TaskIds;
  private readonly now: () => number;

  constructor(private readonly deps: TasksDeps) {
    this.now = deps.now ?? Date.now;
    this.store = new TaskStore(deps.db);
    this.limits = new TaskLimits(deps.db, deps.config);
    this.ids = new TaskIds(deps.config);
    this.runner = new TaskRunner({
      store: this.store,
      catalog: deps.catalog,
      logger: deps.logger,
      serverInfo: deps.serverInfo,
      toolByName: deps.toolByName,
      credentialsOf: (row) =>
        loadUpstreamCredential(deps.db, deps.secrets, row.ownerWorkspaceId, row.ownerUserId),
      leaseMs: deps.leaseMs,
      retentionMs: deps.retentionMs,
      maxWorkMs: deps.maxWorkMs,
      now: this.now,
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  /**
   * Stores the task of an admitted call whose work has started (the row first: a tasks/get for its id
   * answers from now on, on any instance), then settles it in the background. Its CreateTaskResult.
   * The task of a job its grant already has a task for (an identical submit that reused the job) is
   * that task, not a new row. Throws TaskLimitReached when the working limits are full.
   */
  async create(
    caller: MemberCaller,
    admitted: AdmittedCall,
    started: { job: StartedJob; reused: Reused | null },
  ): Promise<TaskView> {
    const def = admitted.def;
    const work = def.work;
    if (!work) throw new Error(`${def.name} has no long work`);
    const taskId = this.ids.mint(caller.grantId, work.kind, String(started.job.id));
    const now = this.now();
    const row: TaskRow = {
      id: this.ids.hashOf(taskId),
      ownerUserId: caller.userId,
      ownerClientId: caller.clientId,
      ownerGrantId: caller.grantId,
      ownerWorkspaceId: caller.workspaceId,
      tool: def.name,
      args: storedTaskArgs(admitted.args, admitted.notes),
      jobKind: work.kind,
      jobId: String(started.job.id),
      reusedAgeMs: started.reused ? started.reused.ageMs : null,
      status: 'working',
      statusMessage: `${jobName(work.kind)} ${started.job.id} ${started.reused ? 'found (same arguments, submitted earlier)' : 'created'}`,
      createdAt: now,
      updatedAt: now,
      nextPollAt: null,
      result: null,
      leaseOwner: this.runner.instanceId,
      leaseUntil: this.runner.leaseUntil(),
      // Kept until it ended, at the latest after the longest wait, and the retention after that.
      expiresAt: now + this.deps.maxWorkMs + this.deps.retentionMs,
    };
    const stored = await this.limits.insert(row, now);
    if (!stored.stored && 'refusal' in stored) throw new TaskLimitReached(stored.refusal);
    if (!stored.stored) {
      const local = this.runner.local(row.id);
      const pollMs = local
        ? this.runner.pollInterval(local)
        : pollIntervalMs(stored.existing.nextPollAt, now, this.deps.catalog.options.pollMaxMs);
      return taskView(taskId, stored.existing, pollMs);
    }
    const task = new RunningTask(
      row,
      def,
      work,
      admitted.args as Record<string, unknown>,
      admitted.ctx.creds,
      admitted.notes,
    );
    this.runner.begin(task, started.job);
    return taskView(taskId, row, this.runner.pollInterval(task));
  }

  /**
   * tasks/get: the caller's task, or null for anything else (audited either way). The answer itself,
   * not a promise, when this instance runs the task: every working task's client repeats this read.
   */
  get(caller: Caller | undefined, taskId: string): FoundTask | null | Promise<FoundTask | null> {
    const started = performance.now();
    if (!isTaskId(taskId)) return this.found(caller, taskId, '', undefined, started, null);
    const idHash = this.ids.hashOf(taskId);
    const local = this.runner.local(idHash);
    if (local) return this.found(caller, taskId, idHash, local.row, started, this.runner.pollInterval(local));
    return this.store.read(idHash).then((row) => {
      const now = this.now();
      const pollMs = row ? pollIntervalMs(row.nextPollAt, now, this.deps.catalog.options.pollMaxMs) : null;
      const found = this.found(caller, taskId, idHash, row, started, pollMs);
      // Its instance stopped without handing it over: take it over here, without making the reader wait.
      if (found && row?.status === 'working' && row.leaseUntil < now) void this.runner.claim(row);
      return found;
    });
  }

  private found(
    caller: Caller | undefined,
    taskId: string,
    idHash: string,
    row: TaskRow | undefined,
    started: number,
    pollMs: number | null,
  ): FoundTask | null {
    if (!row || !ownedBy(row, caller) || row.expiresAt < this.now()) {
      this.audit(caller, 'tasks/get', 'not_found', started);
      return null;
    }
    if (!this.deps.countRead(idHash, performance.now() - started))
      this.audit(caller, 'tasks/get', 'ok', started, row, idHash);
    return { fields: taskGetFields(taskId, row, pollMs) };
  }

  /**
   * tasks/cancel: an agent run is cancelled upstream (the client asked: an explicit cancel); a search
   * has no upstream cancel and keeps running, readable through its get tool. The task ends
   * `cancelled`, unless its work ended first. False for anything but the caller's task.
   */
  async cancel(caller: Caller | undefined, taskId: string): Promise<boolean> {
    const started = performance.now();
    if (!isTaskId(taskId)) {
      this.audit(caller, 'tasks/cancel', 'not_found', started);
      return false;
    }
    const idHash = this.ids.hashOf(taskId);
    const row = await this.store.read(idHash);
    const now = this.now();
    if (!row || !ownedBy(row, caller) || row.expiresAt < now) {
      this.audit(caller, 'tasks/cancel', 'not_found', started);
      return false;
    }
    if (row.status === 'working') {
      // This instance's settle stops first: it would otherwise see the run fail upstream (the cancel
      // below) and end the task completed before the cancel ends it.
      this.runner.drop(idHash);
      const statusMessage = await this.cancelUpstream(caller as MemberCaller, row);
      await this.store.end(idHash, {
        status: 'cancelled',
        statusMessage,
        result: null,
        updatedAt: now,
        expiresAt: now + this.deps.retentionMs,
      });
    }
    this.audit(caller, 'tasks/cancel', 'ok', started, row);
    return true;
  }

  /** tasks/update: acknowledged for the caller's task (no task of ours ever waits for input). */
  async update(caller: Caller | undefined, taskId: string): Promise<boolean> {
    const started = performance.now();
    const row = isTaskId(taskId) ? await this.store.read(this.ids.hashOf(taskId)) : undefined;
    const found = row !== undefined && ownedBy(row, caller) && row.expiresAt >= this.now();
    this.audit(caller, 'tasks/update', found ? 'ok' : 'not_found', started, found ? row : undefined);
    return found;
  }

  /** Cancels an agent run upstream; the cancelled task's status message either way. */
  private async cancelUpstream(caller: MemberCaller, row: TaskRow): Promise<string> {
    const what = `${jobName(row.jobKind as never)} ${row.jobId}`;
    if (row.jobKind !== 'run') {
      const getTool = row.jobKind === 'expert_search' ? 'get_expert_search' : `get_${row.jobKind}`;
      return `Cancelled. ${what} keeps running upstream (searches cannot be cancelled): read it with ${getTool} (search_id ${row.jobId}).`;
    }
    const creds = caller.upstream;
    try {
      if (!creds) throw new Error('no credential');
      await this.deps.catalog.upstream.cancelRun(creds, row.jobId, { signal: AbortSignal.timeout(10_000) });
      // A cancelled run is never the answer to a later identical start_agent_run.
      await this.deps.catalog.reuse?.seen('run', row.jobId, 'failed');
      return `Cancelled: ${what} was cancelled upstream.`;
    } catch (err) {
      this.deps.logger.warn({ err }, 'cancelling a task run upstream failed');
      return `Cancelled here; cancelling ${what} upstream failed: call cancel_agent_run with run_id ${row.jobId}.`;
    }
  }

  private audit(
    caller: Caller | undefined,
    method: string,
    status: string,
    started: number,
    row?: TaskRow,
    repeated?: string,
  ): void {
    const who = caller ? auditIdentity(caller) : { userId: null, workspaceId: null, clientId: null };
    this.deps.audit(
      {
        ...who,
        tool: method,
        status,
        durationMs: performance.now() - started,
        ...(row ? { detail: { job: `${row.jobKind}:${row.jobId}` } } : {}),
      },
      repeated,
    );
  }
}

/**
 * The task's person, app and workspace are the caller's own, through the grant that created it: a
 * revoked app whose client connects again holds a new grant, and meets "not found".
 */
function ownedBy(row: TaskRow, caller: Caller | undefined): boolean {
  return (
    caller?.kind === 'member' &&
    row.ownerGrantId === caller.grantId &&
    row.ownerUserId === caller.userId &&
    row.ownerClientId === caller.clientId &&
    row.ownerWorkspaceId === caller.workspaceId
  );
}
