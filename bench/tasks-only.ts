/**
 * `npm run bench:tasks`: the tasks extension's figures of `npm run bench`
 * (bench/figures/tasks.ts) and what they are held against, nothing else: rounds of the bare route,
 * tools/list (2026-07-28) and tasks/get of a working task, as `npm run bench` runs them, then the
 * working tasks polled by their clients at pollIntervalMs. TASKS_ROUNDS (3), TASKS_SECONDS (5),
 * TASKS (1,000), TASKS_WINDOW_MS (20,000), TASKS_REPEATS (1).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureRequests, identityOnly } from './capture.js';
import {
  type PolledTasksSample,
  polledTasks,
  taskRows,
  tasksGetRound,
  workingTaskRequest,
} from './figures/tasks.js';
import { toolsListRound } from './figures/throughput.js';
import { table } from './report.js';
import { type Sandbox, startBaseline, startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const rounds = env('TASKS_ROUNDS', 3);
const seconds = env('TASKS_SECONDS', 5);
const tasks = env('TASKS', 1_000);
const windowMs = env('TASKS_WINDOW_MS', 20_000);
const repeats = env('TASKS_REPEATS', 1);
const CREDENTIALS = 20;
const log = (message: string) => process.stderr.write(`[tasks] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function credential(sandbox: Sandbox, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { token: string }).token;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-tasks-'));
  try {
    const sandbox = await startSandbox();
    const main = await credential(sandbox, { credits: 1_000_000, producer: true });
    const others: string[] = [];
    for (let i = 0; i < CREDENTIALS + 1; i++) others.push(await credential(sandbox, { credits: 100_000 }));
    const data = await setupDatabase(join(work, 'bench.db'), [main, ...others], 0);
    const [mainGrant, taskGrant, ...grants] = data.grants;
    if (!mainGrant || !taskGrant) throw new Error('no bench grant');
    const gateway = await startGateway({ databasePath: join(work, 'bench.db'), sandbox, logDir: work });
    const mcpUrl = `${gateway.url}/mcp`;
    const created = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${mainGrant.accessToken}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'submit_keyword_search', arguments: { query: 'heat pumps', platforms: ['twitter'] } },
      }),
    });
    const searchId = Number(/"search_id":\s*(\d+)/.exec(await created.text())?.[1]);
    const requests = await captureRequests(mcpUrl, mainGrant.accessToken, searchId);
    const listed = await fetch(mcpUrl, { method: 'POST', ...identityOnly(requests.legacy) });
    const bodyFile = join(work, 'tools-list-answer');
    writeFileSync(bodyFile, Buffer.from(await listed.arrayBuffer()));
    const baseline = await startBaseline({
      bodyFile,
      contentType: listed.headers.get('content-type') ?? 'application/json',
    });
    const tasksGet = await workingTaskRequest(mcpUrl, sandbox, taskGrant, requests.modern);
    const samples: Array<{ tasksGetUs: number; baselineUs: number; toolsListUs: number }> = [];
    for (let r = 0; r <= rounds; r++) {
      log(`round ${r}${r === 0 ? ' (warm-up)' : ''}`);
      const s = r === 0 ? 1 : seconds;
      const t = await toolsListRound(baseline.url, mcpUrl, requests, s, {
        baseline: baseline.proc.pid,
        gateway: gateway.proc.pid,
      });
      const g = await tasksGetRound(mcpUrl, tasksGet, s, gateway.proc.pid);
      if (r > 0)
        samples.push({ tasksGetUs: g.cpuUs, baselineUs: t.cpuUs.baseline, toolsListUs: t.cpuUs.modern });
      log(
        `  baseline ${Math.round(t.cpuUs.baseline)} µs, tools/list ${Math.round(t.cpuUs.modern)} µs, tasks/get ${Math.round(g.cpuUs)} µs (${Math.round(g.rps)}/s)`,
      );
    }
    const polled: PolledTasksSample[] = [];
    for (let i = 0; tasks > 0 && i < repeats; i++) {
      await sleep(10_000);
      log(`polled tasks ${i + 1}/${repeats}: ${tasks} tasks, windows of ${windowMs} ms`);
      const p = await polledTasks({
        gateway: { url: gateway.url, pid: gateway.proc.pid },
        sandbox,
        grants,
        modern: requests.modern,
        tasks,
        windowMs,
      });
      log(`  ${JSON.stringify(p)}`);
      polled.push(p);
    }
    await baseline.proc.stop();
    await gateway.proc.stop();
    await sandbox.proc.stop();
    process.stdout.write(`\n${table(taskRows(samples, polled))}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[tasks] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
