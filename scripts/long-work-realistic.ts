/**
 * `npm run proof:long-work`: long work at the upstream's real pace, run by hand (about five minutes of
 * wall time, little CPU). Starts the sandbox at SANDBOX_SPEED=realistic (keyword and user searches
 * take minutes, expert searches about two, agent runs three to five) and the built server with its
 * default wait limits, then runs a keyword search, a user search, an expert search and an agent run in
 * parallel twice:
 *
 * - with the v1 SDK client's default options (a 60 s request time-out that progress does not reset):
 *   each submit, then the next call each result names (its get tool with wait), until the final result;
 * - with a client that declares the tasks extension (`@modelcontextprotocol/ext-tasks` over the v2
 *   client): one task per submit, polled at the interval the server gives to its result.
 *
 * Then it asks the sandbox's control API what upstream saw of each credential (one per request):
 * exactly one search or run created, nothing cancelled. It prints a report (calls, longest call, total
 * time per kind) and exits non-zero when any check fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { type Sandbox, startGateway, startSandbox } from '../bench/servers.js';
import { setupDatabase } from '../bench/setup.js';
import { nextCallOf } from '../tests/helpers/fault-drivers.js';

// biome-ignore lint/suspicious/noExplicitAny: results and the control API's answers are read loosely
type Json = any;

const WORK = [
  {
    kind: 'keyword search',
    tool: 'submit_keyword_search',
    args: { query: 'heat pumps', platforms: ['twitter'] },
  },
  { kind: 'user search', tool: 'submit_user_search', args: { query: 'heatpumpfan', platform: 'twitter' } },
  { kind: 'expert search', tool: 'submit_expert_search', args: { query: 'heat pump engineers in Norway' } },
  { kind: 'agent run', tool: 'start_agent_run', args: { question: 'Are heat pumps trending?' } },
] as const;

/** The sandbox record's list of what a tool creates. */
const createdBy: Record<string, (record: Json) => Json[]> = {
  submit_keyword_search: (r) => r.searches.keyword,
  submit_user_search: (r) => r.searches.user,
  submit_expert_search: (r) => r.searches.expert,
  start_agent_run: (r) => r.runs,
};

interface Outcome {
  client: string;
  kind: string;
  tool: string;
  upstreamToken: string;
  calls: number;
  longestMs: number;
  totalMs: number;
  completed: boolean;
  error?: string;
}

const log = (message: string) => process.stderr.write(`[long-work] ${message}\n`);

async function control(sandbox: Sandbox, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** The v1 client, default options: submit, then each next call the results name, to the end. */
async function followWithV1(mcpUrl: string, access: string, work: (typeof WORK)[number]) {
  const client = new ClientV1({ name: 'long-work-realistic', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${access}` } } }),
  );
  const started = performance.now();
  let calls = 0;
  let longestMs = 0;
  let request: { name: string; arguments: Record<string, unknown> } | null = {
    name: work.tool,
    arguments: { ...work.args },
  };
  try {
    for (;;) {
      if (!request) throw new Error('a result named no next call and was not final');
      const t0 = performance.now();
      calls++;
      const result: Json = await client.callTool(request);
      longestMs = Math.max(longestMs, performance.now() - t0);
      if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 300)}`);
      if (result.structuredContent?.completed === true)
        return { calls, longestMs, totalMs: performance.now() - started, completed: true };
      request = nextCallOf(result);
    }
  } catch (error) {
    return {
      calls,
      longestMs,
      totalMs: performance.now() - started,
      completed: false,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await client.close();
  }
}

/** A client declaring the tasks extension (its own client package): one task, polled to the result. */
async function taskWithExtension(mcpUrl: string, access: string, work: (typeof WORK)[number]) {
  const client = new ClientV2(
    { name: 'long-work-tasks', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new TransportV2(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${access}` } } }),
  );
  let calls = 0;
  let longestMs = 0;
  let id = 0;
  // The package has no transport for the 2026-07-28 task wire: the host posts its requests.
  const rawDispatch: RawClientDispatch = async (request) => {
    const message = request as { method: string; params: Json };
    const t0 = performance.now();
    calls++;
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': message.method,
        'mcp-name': message.method === 'tools/call' ? message.params.name : message.params.taskId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...message }),
    });
    const answer = JSON.parse(await res.text());
    longestMs = Math.max(longestMs, performance.now() - t0);
    return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
  };
  const tasks = createTaskSessionFromClient(client, {
    endpointId: 'long-work-realistic',
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'long-work-tasks', version: '1' },
      clientCapabilities: {},
    },
  });
  const started = performance.now();
  try {
    const execution = await tasks.callTool(work.tool, { ...work.args } as Json);
    if (execution.kind !== 'task') throw new Error(`answered without a task: ${execution.kind}`);
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as Json;
    const completed = outcome.status === 'completed' && result.structuredContent?.completed === true;
    return {
      calls,
      longestMs,
      totalMs: performance.now() - started,
      completed,
      ...(completed ? {} : { error: `task ${outcome.status}` }),
    };
  } catch (error) {
    return {
      calls,
      longestMs,
      totalMs: performance.now() - started,
      completed: false,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await tasks.close();
    await client.close();
  }
}

/** What upstream saw of one credential: the problems found, none when one creation and no cancel. */
async function upstreamProblems(sandbox: Sandbox, outcome: Outcome): Promise<string[]> {
  const record = await control(sandbox, 'GET', `/credentials/${outcome.upstreamToken}`);
  const requests: Json[] = (await control(sandbox, 'GET', `/credentials/${outcome.upstreamToken}/requests`))
    .requests;
  const problems: string[] = [];
  const created = createdBy[outcome.tool]?.(record) ?? [];
  if (created.length !== 1) problems.push(`${created.length} created upstream`);
  const posts = requests.filter((q) => q.method === 'POST' && !String(q.path).endsWith('/cancel'));
  if (posts.length !== 1) problems.push(`${posts.length} creating requests upstream`);
  if (requests.some((q) => String(q.path).endsWith('/cancel'))) problems.push('cancelled upstream');
  if (outcome.tool === 'start_agent_run' && created[0]?.status !== 'completed')
    problems.push(`run ${created[0]?.status}`);
  return problems;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-long-work-'));
  const sandbox = await startSandbox('realistic');
  const tokens: string[] = [];
  for (let i = 0; i < WORK.length * 2; i++)
    tokens.push((await control(sandbox, 'POST', '/credentials', { credits: 10_000, producer: true })).token);
  const data = await setupDatabase(join(work, 'long-work.db'), tokens, 0);
  const gateway = await startGateway({ databasePath: join(work, 'long-work.db'), sandbox, logDir: work });
  const mcpUrl = `${gateway.url}/mcp`;
  const began = Date.now();
  log(`server ${mcpUrl}, sandbox at realistic speed; ${WORK.length * 2} pieces of work in parallel`);
  try {
    const runs = [
      ...WORK.map((w, i) => ({ client: 'v1 SDK client, default options', work: w, grant: data.grants[i] })),
      ...WORK.map((w, i) => ({
        client: 'tasks extension client',
        work: w,
        grant: data.grants[WORK.length + i],
      })),
    ];
    const outcomes: Outcome[] = await Promise.all(
      runs.map(async ({ client, work: w, grant }) => {
        if (!grant) throw new Error('no grant');
        const run = client.startsWith('v1') ? followWithV1 : taskWithExtension;
        const o = await run(mcpUrl, grant.accessToken, w);
        log(
          `${client}: ${w.kind} ${o.completed ? 'completed' : `FAILED (${o.error})`} in ${seconds(o.totalMs)}`,
        );
        return { client, kind: w.kind, tool: w.tool, upstreamToken: grant.upstreamToken, ...o };
      }),
    );
    let failed = false;
    const lines = [
      `Long work at realistic speed (${new Date(began).toISOString()}, ${seconds(Date.now() - began)} wall)`,
      '',
      '| client | work | calls | longest call | total | final result | upstream |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const o of outcomes) {
      const problems = await upstreamProblems(sandbox, o);
      if (!o.completed || problems.length) failed = true;
      lines.push(
        `| ${o.client} | ${o.kind} | ${o.calls} | ${seconds(o.longestMs)} | ${seconds(o.totalMs)} | ${o.completed ? 'yes' : `no: ${o.error}`} | ${problems.length ? problems.join('; ') : 'one created, none cancelled'} |`,
      );
    }
    lines.push(
      '',
      failed ? 'FAILED' : 'All reached their final result; one upstream search or run each; none cancelled.',
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    await gateway.proc.stop();
    await sandbox.proc.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
