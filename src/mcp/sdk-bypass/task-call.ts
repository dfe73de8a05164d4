import { jsonResponse } from '../../http/compress.js';
import type { Logger } from '../../logger.js';
import type { Caller, MemberCaller } from '../auth/caller.js';
import type { CallEnv } from '../catalog/call-env.js';
import { AdmittedCall, admit } from '../catalog/execute.js';
import { toCallToolResult } from '../catalog/model-outcome.js';
import type { CatalogDeps, ToolOutcome } from '../catalog/types.js';
import { type FoundTask, TaskLimitReached, type Tasks } from '../tasks/tasks.js';
import { startWithinLimit, waitLimit } from '../tools/long-work.js';
import type { LongWork, ToolDef } from '../tools/types.js';
import { ClientLeft } from '../waiting/stop-reasons.js';
import { type PlainCall, responseText } from './direct-wire.js';
import { createTaskText, type PlainTaskGet, taskGetText, taskNotFoundText } from './task-wire.js';

export interface TaskCallsDeps {
  catalog: CatalogDeps;
  tasks: Tasks;
  logger: Logger;
  serverInfo: { name: string; version: string };
}

/**
 * The tasks extension's two hot requests, answered outside the SDK (README.md: `task-create`,
 * `task-get`):
 *
 * - a plain 2026-07-28 tools/call of long work whose request declared the extension: the call is
 *   admitted as any other (so a bad argument, a refusal, a write cap, a 402 or a 422 is an immediate
 *   tool error, not a task), its work started, the task stored, and a CreateTaskResult answered at
 *   once; the work is settled in the background (../tasks/task-runner.ts);
 * - a plain tasks/get, read from this instance's running task or one database row.
 */
export class TaskCalls {
  constructor(private readonly deps: TaskCallsDeps) {}

  async create(
    call: PlainCall,
    request: Request,
    def: ToolDef,
    caller: MemberCaller,
    arrivedAt: number | undefined,
  ): Promise<Response> {
    const work = def.work as LongWork;
    // The client's leaving stops the call's upstream create, as any call's; the task's work has its own.
    const controller = new AbortController();
    const gone = () => controller.abort(new ClientLeft());
    request.signal.addEventListener('abort', gone, { once: true });
    try {
      const env: CallEnv = {
        caller,
        requestId: call.id,
        notify: null,
        signal: controller.signal,
        controller,
        arrivedAt,
      };
      const admitted = await admit(def, call.args, env, this.deps.catalog);
      if (!(admitted instanceof AdmittedCall)) return this.answer(call, admitted);
      // The task limits before the work starts: a refused call spends nothing upstream.
      const refusal = await this.deps.tasks.limits.admit(caller);
      if (refusal) return this.answer(call, await admitted.refuse(refusal, 'task_limit'));
      const args = admitted.args as Record<string, unknown>;
      let started: Awaited<ReturnType<typeof startWithinLimit>>;
      try {
        // Within the call's limit: a create the upstream is slow to answer goes on in the background.
        started = await startWithinLimit(def.name, work, args, admitted.ctx);
      } catch (error) {
        return this.answer(call, await admitted.end({ error }));
      }
      let taskJson: string;
      try {
        taskJson = createTaskText(
          call.id,
          await this.deps.tasks.create(caller, admitted, started),
          this.deps.serverInfo,
        );
      } catch (error) {
        // Not stored, so not a task: the call waits like one made without the extension (nothing is
        // lost). A working limit reached since the check above (parallel submits) ends here too.
        if (!(error instanceof TaskLimitReached))
          this.deps.logger.error({ err: error, tool: def.name }, 'storing a task failed');
        const limit = waitLimit(work, this.deps.catalog.options);
        const settled = await work.settle(started.job, args, admitted.ctx, limit);
        return this.answer(call, await admitted.end({ out: settled.output }));
      }
      await admitted.handOver({ task: 'created', job: `${work.kind}:${started.job.id}` });
      return jsonResponse(taskJson);
    } finally {
      request.signal.removeEventListener('abort', gone);
    }
  }

  /** A plain tasks/get's answer: at once when this instance runs the task (../tasks/tasks.ts:get). */
  get(plain: PlainTaskGet, caller: Caller | undefined): Response | Promise<Response> {
    const found = this.deps.tasks.get(caller, plain.taskId);
    return found instanceof Promise
      ? found.then((f) => this.taskAnswer(plain, f))
      : this.taskAnswer(plain, found);
  }

  private taskAnswer(plain: PlainTaskGet, found: FoundTask | null): Response {
    if (!found) return jsonResponse(taskNotFoundText(plain.id));
    return jsonResponse(taskGetText(plain.id, found.fields, this.deps.serverInfo));
  }

  /** A tools/call answered with a tool result (JSON on 2026-07-28, as the SDK writes it). */
  private answer(call: PlainCall, outcome: ToolOutcome): Response {
    const json = outcome.ok ? outcome.json : undefined;
    const text = responseText(call, toCallToolResult(outcome), this.deps.serverInfo, json);
    // Our results hold only blocks responseText writes (text, resource links).
    if (text === null) throw new Error('a tool result the bypass cannot write');
    return jsonResponse(text);
  }
}
