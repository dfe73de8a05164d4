import type { ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Caller, MemberCaller } from '../auth/caller.js';
import { arrivedAtOf } from '../catalog/call-env.js';
import { DirectCalls } from './direct-call.js';
import type { Decision, RequestFacts } from './paths.js';
import { TaskCalls, type TaskCallsDeps } from './task-call.js';
import type { PlainTaskGet } from './task-wire.js';
import { DirectWaitingCall, type DirectWaitingDeps } from './waiting-direct.js';
import { FramedWaitingCalls } from './waiting-framed.js';

/** What the bypass needs of the server; the tasks, where the server keeps them (../tasks/). */
export type BypassDeps = DirectWaitingDeps & { tasks?: TaskCallsDeps['tasks'] };

/** The paths of ./paths.ts:choosePath that answer outside the SDK (or frame around it). */
export type BypassDecision = Exclude<Decision, { path: 'sdk' | 'sdk-one-tool' | 'sdk-refusal' }>;

/** The answers to tools/call made outside the SDK's per-request server (README.md beside this file). */
export class SdkBypass {
  private readonly direct: DirectCalls;
  private readonly framed: FramedWaitingCalls;
  private readonly tasks: TaskCalls | null;

  constructor(private readonly deps: BypassDeps) {
    this.direct = new DirectCalls(deps);
    this.framed = new FramedWaitingCalls(deps);
    this.tasks = deps.tasks ? new TaskCalls({ ...deps, tasks: deps.tasks }) : null;
  }

  /** A plain tasks/get (./paths.ts:taskGetPath found one, so this server keeps tasks). */
  taskGet(get: PlainTaskGet, caller: Caller | undefined): Response | Promise<Response> {
    return (this.tasks as TaskCalls).get(get, caller);
  }

  /**
   * `facts.def` and `facts.tool` are set: ./paths.ts:choosePath chose a bypass path only for a tools/call of a
   * known tool. `outgoing` is Node's response, which a plain waiting call writes its event stream to.
   */
  serve(
    decision: BypassDecision,
    facts: RequestFacts,
    authInfo: AuthInfo,
    outgoing: ServerResponse | undefined,
  ): Promise<Response> {
    const def = facts.def as NonNullable<RequestFacts['def']>;
    const tool = facts.tool as NonNullable<RequestFacts['tool']>;
    const { request, body: parsedBody } = facts;
    switch (decision.path) {
      case 'direct-call':
        return this.direct.serve({
          call: decision.call,
          request,
          authInfo,
          parsedBody,
          def,
          tool,
          refusal: facts.refusal,
        });
      case 'waiting-direct':
        return new DirectWaitingCall(this.deps, {
          call: decision.call,
          request,
          authInfo,
          parsedBody,
          def,
          tool,
          outgoing,
        }).serve();
      case 'waiting-framed':
        return this.framed.serve(request, authInfo, parsedBody, def, tool);
      case 'task-create':
        return (this.tasks as TaskCalls).create(
          decision.call,
          request,
          def,
          facts.caller as MemberCaller,
          arrivedAtOf(authInfo),
        );
    }
  }
}
