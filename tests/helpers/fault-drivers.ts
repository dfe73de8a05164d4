/**
 * The three clients of the fault suite, each driving one piece of long work to its result the way its
 * user would: the v1 and v2 SDK clients with their default options (submit, then the next call each
 * result names, and the same call again after an error or an answer that names none, as a model
 * retries), and a client declaring the tasks extension (`@modelcontextprotocol/ext-tasks`: one task,
 * polled at the interval the server gives). Every request's time to its answer is recorded.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Json } from './harness.js';

export type ClientKind = 'v1' | 'v2' | 'tasks';

export interface Work {
  kind: string;
  tool: string;
  args: Record<string, unknown>;
}

/** One request and its fate: answered (a JSON-RPC result or error) after `ms`, or not at all. */
export interface CallRecord {
  ms: number;
  answered: boolean;
}

export interface Drive {
  calls: CallRecord[];
  /** The work reached its final result (the tool result says `completed`). */
  completed: boolean;
  /** Why not, when it did not: the last error or answer seen. */
  error?: string;
}

export interface DriveOptions {
  mcpUrl: string;
  accessToken: string;
  /** Past this the driver gives up (the work did not reach its result). */
  giveUpMs: number;
  /** Pause before repeating a call that failed or named no next call. */
  retryPauseMs: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The next call a result names: `Call <tool> with <arg> <json value> and wait true`. */
export function nextCallOf(result: Json): { name: string; arguments: Record<string, unknown> } | null {
  const step = String(result?.structuredContent?.next_step ?? '');
  const match = /Call (\w+) with (\w+) ("[^"]+"|\d+) and wait true/.exec(step);
  if (!match) return null;
  const [, name = '', arg = '', value = ''] = match;
  return { name, arguments: { [arg]: JSON.parse(value), wait: true } };
}

interface ToolCaller {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<Json>;
  close(): Promise<void>;
}

async function sdkClient(kind: 'v1' | 'v2', options: DriveOptions): Promise<ToolCaller> {
  const url = new URL(options.mcpUrl);
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'fault-suite-v1', version: '1' });
    await client.connect(new TransportV1(url, bearer(options.accessToken)));
    return { callTool: (request) => client.callTool(request), close: () => client.close() };
  }
  const client = new ClientV2(
    { name: 'fault-suite-v2', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new TransportV2(url, bearer(options.accessToken)));
  return { callTool: (request) => client.callTool(request), close: () => client.close() };
}

/** Submit, then follow the next calls to the final result; a failed call is repeated as it was. */
async function follow(kind: 'v1' | 'v2', work: Work, options: DriveOptions): Promise<Drive> {
  const calls: CallRecord[] = [];
  const end = Date.now() + options.giveUpMs;
  const submit = { name: work.tool, arguments: { ...work.args } };
  let request = submit;
  let error = 'gave up before any answer';
  let client: ToolCaller | null = null;
  try {
    while (Date.now() < end) {
      client ??= await sdkClient(kind, options).catch(() => null);
      if (client === null) {
        await pause(options.retryPauseMs);
        continue;
      }
      const t0 = performance.now();
      let result: Json;
      try {
        result = await client.callTool(request);
        calls.push({ ms: performance.now() - t0, answered: true });
      } catch (e) {
        // A JSON-RPC error is an answer; a transport failure or the client's own time-out is not.
        const code = (e as { code?: unknown }).code;
        const answered = typeof code === 'number' && code !== -32001;
        calls.push({ ms: performance.now() - t0, answered });
        error = message(e);
        await pause(options.retryPauseMs);
        continue;
      }
      if (result.structuredContent?.completed === true && !result.isError) return { calls, completed: true };
      const next = nextCallOf(result);
      error = String(result.content?.[0]?.text ?? JSON.stringify(result)).slice(0, 300);
      if (result.isError || next === null) await pause(options.retryPauseMs);
      request = next ?? (result.isError ? request : submit);
    }
    return { calls, completed: false, error };
  } finally {
    await client?.close().catch(() => {});
  }
}

/** One task through the extension's client package, polled to its end; a failed create is repeated. */
async function task(work: Work, options: DriveOptions): Promise<Drive> {
  const calls: CallRecord[] = [];
  const end = Date.now() + options.giveUpMs;
  const client = new ClientV2(
    { name: 'fault-suite-tasks', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  let id = 0;
  // The package has no transport for the 2026-07-28 task wire: the host posts its requests.
  const rawDispatch: RawClientDispatch = async (request) => {
    const sent = request as { method: string; params: Json };
    const t0 = performance.now();
    try {
      const res = await fetch(options.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': sent.method,
          'mcp-name': sent.method === 'tools/call' ? sent.params.name : sent.params.taskId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...sent }),
        signal: AbortSignal.timeout(Math.max(1, end - Date.now())),
      });
      const answer = JSON.parse(await res.text());
      calls.push({ ms: performance.now() - t0, answered: true });
      return answer.error
        ? { kind: 'error', error: answer.error }
        : { kind: 'result', result: answer.result };
    } catch (e) {
      calls.push({ ms: performance.now() - t0, answered: false });
      throw e;
    }
  };
  let error = 'gave up before any answer';
  try {
    await client.connect(new TransportV2(new URL(options.mcpUrl), bearer(options.accessToken)));
    const tasks = createTaskSessionFromClient(client, {
      endpointId: 'fault-suite',
      rawDispatch,
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'fault-suite-tasks', version: '1' },
        clientCapabilities: {},
      },
    });
    try {
      while (Date.now() < end) {
        try {
          const execution = await tasks.callTool(work.tool, { ...work.args } as Json);
          const result = resultFromTaskOutcome((await execution.settle()).outcome) as Json;
          if (result?.structuredContent?.completed === true && !result.isError)
            return { calls, completed: true };
          error = String(result?.content?.[0]?.text ?? JSON.stringify(result)).slice(0, 300);
        } catch (e) {
          error = message(e);
        }
        await pause(options.retryPauseMs);
      }
      return { calls, completed: false, error };
    } finally {
      await tasks.close();
    }
  } finally {
    await client.close().catch(() => {});
  }
}

export function drive(kind: ClientKind, work: Work, options: DriveOptions): Promise<Drive> {
  return kind === 'tasks' ? task(work, options) : follow(kind, work, options);
}
