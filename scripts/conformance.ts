/**
 * `npm run conformance`: the MCP conformance suite (`@modelcontextprotocol/conformance`, from the npm
 * registry through npx) against this server, by hand: the server and the sandbox in this process, as
 * the tests start them, behind a loopback relay that adds a bearer token (the suite sends none, and
 * /mcp answers nothing without one). By default it runs what the 2026-07-28 revision requires
 * (`--requirements 2026-07-28`); other arguments are passed to `conformance server` instead. The suite
 * needs Node 22, which npx fetches as the `node` package when this one is older.
 *
 * Most scenarios call fixture tools this server does not have (`greet`, `slow_compute`, …), so their
 * checks fail with "Tool … not found" or "Not testable". The summary printed at the end lists every
 * check of the tasks extension and exits non-zero when one failed for another reason.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness } from '../tests/helpers/harness.js';

const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/**
 * A failure that says the scenario's fixture is missing, not that this server answered wrongly: the
 * suite's words for it, or a fixture tool named (calling one this server lacks answers -32602).
 */
const FIXTURE_BOUND =
  /not found|Not testable|fixture|unavailable|\b(greet|slow_compute|failing_job|protocol_error_job|confirm_delete|multi_input|test_\w+)\b/i;

const log = (message: string) => process.stderr.write(`[conformance] ${message}\n`);

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

async function main() {
  const harness = await startHarness({ searchMaxWaitMs: 5_000, runMaxWaitMs: 5_000 });
  const upstreamToken = await harness.credential({ speed: 'instant', producer: true, credits: 1_000 });
  const token = await harness.token({ upstreamToken });
  const target = new URL(harness.mcpUrl);
  const relay = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: req.method,
        headers: { ...req.headers, host: target.host, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
  const port = (relay.address() as { port: number }).port;
  const out = mkdtempSync(join(tmpdir(), 'sim-conformance-'));
  const passed = process.argv.slice(2);
  const args = [
    '-y',
    '-p',
    'node@22',
    '-p',
    SUITE,
    'conformance',
    'server',
    '--url',
    `http://127.0.0.1:${port}/mcp`,
    '-o',
    out,
    ...(passed.length ? passed : ['--requirements', '2026-07-28']),
  ];
  log(`npx ${args.join(' ')}`);
  const code = await new Promise<number>((resolve) => {
    spawn('npx', args, { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1));
  });
  relay.close();
  await harness.close();

  const tasks: Array<Check & { scenario: string }> = [];
  for (const dir of readdirSync(out).filter((d) => d.startsWith('server-tasks-'))) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    for (const check of JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[])
      tasks.push({ ...check, scenario });
  }
  rmSync(out, { recursive: true, force: true });
  const wrong = tasks.filter((c) => c.status === 'FAILURE' && !FIXTURE_BOUND.test(c.errorMessage ?? ''));
  const count = (status: string) => tasks.filter((c) => c.status === status).length;
  process.stdout.write(
    `\nTasks extension checks: ${count('SUCCESS')} passed, ${count('FAILURE') - wrong.length} failed on a missing fixture tool, ${wrong.length} failed otherwise, ${count('SKIPPED')} skipped\n`,
  );
  for (const c of tasks)
    process.stdout.write(
      `  ${c.status.padEnd(8)} ${c.scenario} / ${c.id}${c.errorMessage ? `: ${c.errorMessage.slice(0, 100)}` : ''}\n`,
    );
  log(`the suite exited ${code}`);
  process.exit(wrong.length > 0 || tasks.length === 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  log(String(error));
  process.exit(1);
});
