/**
 * The tasks extension's costs on the gateway:
 *
 * - tasks/get server CPU per request, as the tools/list figures are measured (autocannon, 16
 *   connections, the gateway's CPU over the requests it answered), for a working task of the caller's:
 *   one read of memory (this instance runs it), an audit row, the answer. Its ratio to the bare route is
 *   held against tools/list's in the same round.
 * - 1,000 working tasks polled by their clients, each at the pollIntervalMs its last answer gave: the
 *   gateway's CPU while their work runs and nobody polls (the upstream polls of the background settles
 *   alone), then with every client polling; the difference is what the clients cost.
 */

import type { CapturedRequest } from '../capture.js';
import { cpuPerRequest } from '../lib/cpu.js';
import { load } from '../lib/load.js';
import { cpuMs, median, round } from '../lib/stats.js';
import type { Row } from '../report.js';
import { METRICS_TOKEN, type Sandbox } from '../servers.js';
import type { BenchGrant } from '../setup.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The 2026-07-28 client's own request envelope (captured), declaring the tasks extension. */
function envelope(modern: CapturedRequest, declareTasks: boolean): Record<string, unknown> {
  const meta = {
    ...(JSON.parse(modern.body) as { params: { _meta: Record<string, unknown> } }).params._meta,
  };
  if (declareTasks) {
    const key = 'io.modelcontextprotocol/clientCapabilities';
    const caps = (meta[key] ?? {}) as { extensions?: Record<string, unknown> };
    meta[key] = { ...caps, extensions: { ...caps.extensions, [TASKS_EXTENSION]: {} } };
  }
  return meta;
}

/** The client's captured headers, with the standard ones of this request (SEP-2243, SEP-2663). */
function headersFor(modern: CapturedRequest, token: string, method: string, name: string) {
  return { ...modern.headers, authorization: `Bearer ${token}`, 'mcp-method': method, 'mcp-name': name };
}

async function rpc(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return JSON.parse(await res.text()) as { result?: Record<string, unknown>; error?: unknown };
}

/** Creates a task through a tools/call declaring the extension; its id and first poll interval. */
async function createTask(
  mcpUrl: string,
  modern: CapturedRequest,
  token: string,
  name: string,
  args: unknown,
) {
  const answer = await rpc(mcpUrl, headersFor(modern, token, 'tools/call', name), {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args, _meta: envelope(modern, true) },
  });
  const task = answer.result as { taskId?: string; pollIntervalMs?: number; resultType?: string } | undefined;
  if (task?.resultType !== 'task' || !task.taskId) throw new Error(`not a task: ${JSON.stringify(answer)}`);
  return { taskId: task.taskId, pollIntervalMs: task.pollIntervalMs ?? 5_000 };
}

function getRequest(modern: CapturedRequest, token: string, taskId: string): CapturedRequest {
  return {
    headers: headersFor(modern, token, 'tasks/get', taskId),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      // The methods are the extension's: a request that does not declare it is refused (-32021).
      params: { taskId, _meta: envelope(modern, true) },
    }),
  };
}

async function control(sandbox: Sandbox, method: string, path: string, body?: unknown) {
  await fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * A task that stays working for as long as the bench runs (its agent run waits for a search backend
 * that is down), and the tasks/get request its client repeats.
 */
export async function workingTaskRequest(
  mcpUrl: string,
  sandbox: Sandbox,
  grant: BenchGrant,
  modern: CapturedRequest,
): Promise<CapturedRequest> {
  await control(sandbox, 'PUT', '/faults', { token: grant.upstreamToken, backend_unavailable: true });
  const { taskId } = await createTask(mcpUrl, modern, grant.accessToken, 'start_agent_run', {
    question: 'Is the bench still running?',
  });
  return getRequest(modern, grant.accessToken, taskId);
}

/** One tasks/get load run: its request rate and the gateway's CPU per request. */
export async function tasksGetRound(mcpUrl: string, request: CapturedRequest, seconds: number, pid: number) {
  const run = await cpuPerRequest(pid, () =>
    load({ connections: 16, duration: seconds, url: mcpUrl, method: 'POST', ...request }),
  );
  return { rps: run.rps, cpuUs: run.cpuUsPerRequest };
}

export interface PolledTasksSample {
  tasks: number;
  windowSeconds: number;
  /** Gateway CPU while the tasks work and nobody polls them: the background settles' upstream polls. */
  cpuPercentQuiet: number;
  /** The same with every task's client polling tasks/get at its pollIntervalMs. */
  cpuPercentPolled: number;
  getsPerSecond: number;
  meanPollIntervalMs: number;
  upstreamPollsPerSecondQuiet: number;
  upstreamPollsPerSecondPolled: number;
}

async function searchAttempts(gatewayUrl: string): Promise<number> {
  const text = await (
    await fetch(`${gatewayUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  let n = 0;
  for (const m of text.matchAll(/^upstream_request_duration_seconds_count\{([^}]*)\} (\S+)$/gm)) {
    if (/host="search"/.test(m[1] ?? '')) n += Number(m[2]);
  }
  return n;
}

/** CPU share of the gateway over `ms`, and the upstream polls it made meanwhile, per second. */
async function cpuWindow(gateway: { url: string; pid: number }, ms: number) {
  const attempts0 = await searchAttempts(gateway.url);
  const cpu0 = cpuMs(gateway.pid);
  const t0 = performance.now();
  await sleep(ms);
  const cpu = ((cpuMs(gateway.pid) - cpu0) / (performance.now() - t0)) * 100;
  const polls = ((await searchAttempts(gateway.url)) - attempts0) / (ms / 1000);
  return { cpu, polls };
}

/** Each repeat's searches are new ones (identical submits within 10 minutes share one search). */
let runs = 0;

/**
 * `tasks` keyword searches at the sandbox's realistic speed (165 s each), each a task; the gateway's
 * CPU over `windowMs` without client polls, then over `windowMs` with every client polling at the
 * interval its last answer gave (each starting at a random point of its first interval, as clients
 * created over time would). The tasks are cancelled at the end, so no wait outlives the figure.
 */
export async function polledTasks(options: {
  gateway: { url: string; pid: number };
  sandbox: Sandbox;
  grants: BenchGrant[];
  modern: CapturedRequest;
  tasks: number;
  windowMs: number;
}): Promise<PolledTasksSample> {
  const { gateway, sandbox, grants, modern, tasks, windowMs } = options;
  const mcpUrl = `${gateway.url}/mcp`;
  for (const g of grants) {
    await control(sandbox, 'DELETE', `/faults?token=${g.upstreamToken}`);
    await control(sandbox, 'PATCH', `/credentials/${g.upstreamToken}`, {
      speed: 'realistic',
      credits: 100_000,
    });
  }
  const run = runs++;
  const created: Array<{ taskId: string; pollIntervalMs: number; grant: BenchGrant }> = [];
  for (let i = 0; i < tasks; i += 50) {
    const batch = Array.from({ length: Math.min(50, tasks - i) }, async (_, j) => {
      const grant = grants[(i + j) % grants.length] as BenchGrant;
      const task = await createTask(mcpUrl, modern, grant.accessToken, 'submit_keyword_search', {
        query: `bench task ${run}-${i + j}`,
        platforms: ['twitter'],
      });
      created.push({ ...task, grant });
    });
    await Promise.all(batch);
  }
  await sleep(5_000);
  const quiet = await cpuWindow(gateway, windowMs);

  let stop = false;
  let gets = 0;
  const intervals: number[] = [];
  const pollers = created.map(async (t) => {
    const request = getRequest(modern, t.grant.accessToken, t.taskId);
    let interval = t.pollIntervalMs;
    await sleep(Math.random() * interval);
    while (!stop) {
      const answer = await rpc(mcpUrl, request.headers, JSON.parse(request.body));
      gets++;
      interval = (answer.result?.pollIntervalMs as number | undefined) ?? interval;
      intervals.push(interval);
      await sleep(interval);
    }
  });
  // Every client has polled at least once (the longest interval is 10 s) before the window opens.
  await sleep(11_000);
  const gets0 = gets;
  const polled = await cpuWindow(gateway, windowMs);
  const getsPerSecond = (gets - gets0) / (windowMs / 1000);
  stop = true;
  await Promise.all(pollers);
  for (const t of created) {
    await rpc(mcpUrl, headersFor(modern, t.grant.accessToken, 'tasks/cancel', t.taskId), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/cancel',
      params: { taskId: t.taskId, _meta: envelope(modern, true) },
    });
  }
  return {
    tasks: created.length,
    windowSeconds: windowMs / 1000,
    cpuPercentQuiet: quiet.cpu,
    cpuPercentPolled: polled.cpu,
    getsPerSecond,
    meanPollIntervalMs: intervals.reduce((a, b) => a + b, 0) / Math.max(1, intervals.length),
    upstreamPollsPerSecondQuiet: quiet.polls,
    upstreamPollsPerSecondPolled: polled.polls,
  };
}

/** The rows: tasks/get CPU against the bare route and tools/list's, and what polled tasks cost. */
export function taskRows(
  rounds: Array<{ tasksGetUs: number; baselineUs: number; toolsListUs: number }>,
  polled: PolledTasksSample[],
): Row[] {
  const rows: Row[] = [];
  if (rounds.length) {
    const ratio = median(rounds.map((r) => r.tasksGetUs / r.baselineUs));
    const toolsList = median(rounds.map((r) => r.toolsListUs / r.baselineUs));
    rows.push({
      figure: 'server CPU per tasks/get (a working task) ÷ baseline',
      value: `${Math.round(median(rounds.map((r) => r.tasksGetUs)))} µs = ${round(ratio, 1)} × (tools/list 2026-07-28: ${round(toolsList, 1)} ×)`,
      target: "≤ tools/list's",
      met: ratio <= toolsList,
    });
  }
  if (polled.length) {
    const extra = median(polled.map((p) => p.cpuPercentPolled - p.cpuPercentQuiet));
    const p = polled[0] as PolledTasksSample;
    rows.push({
      figure: `${p.tasks} working tasks polled at pollIntervalMs: gateway CPU on top of the upstream polls`,
      value: `${round(extra, 1)} % of a core (${polled.map((x) => `${round(x.cpuPercentQuiet, 1)} → ${round(x.cpuPercentPolled, 1)} %`).join(', ')}; ${round(median(polled.map((x) => x.getsPerSecond)), 0)} tasks/get per second, every ${round(median(polled.map((x) => x.meanPollIntervalMs)) / 1000, 1)} s)`,
      target: '< 5 %',
      met: extra < 5,
    });
  }
  return rows;
}
