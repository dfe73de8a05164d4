/**
 * `npx tsx bench/waiting-only.ts [<checkout> …]`: the waiting-call figures of `npm run bench`
 * (bench/figures/waiting.ts) and nothing else, for one or more built checkouts measured turn about on
 * one sandbox, each gateway started fresh on its own copy of one database. Default: this checkout.
 * Compare a change with `/work/wt/before` in one sitting: the machine's speed drifts over minutes.
 *
 * WAIT_CALLS (1,000), WAIT_LAG_MS (20,000), WAIT_ROUNDS (1), WAIT_SLOW=realistic (searches at the
 * sandbox's realistic speed instead of a results lag; WAIT_LAG_MS=165000 then; 10,000 calls need it): the figure's settings and how many times
 * each gateway is measured (a warm-up run of 200 calls, lag WAIT_WARM_LAG_MS or 10 s, precedes the
 * first; WAIT_ROUNDS=0 runs only that). WAIT_COMPLETION=N also
 * measures the completion delay of N demo-speed searches (bench/figures/completion.ts). WAIT_NODE_ARGS:
 * node options for the gateways (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), WAIT_NODE_ARGS_<i> for
 * the i-th checkout given (from 0) only; WAIT_KEEP=1 keeps the
 * scratch directory (gateway logs, databases); WAIT_SNAPSHOTS=<dir> writes a heap snapshot at each
 * settled heap reading (before the calls and while they wait).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { completionDelay } from './figures/completion.js';
import { type WaitingSample, waitingCalls } from './figures/waiting.js';
import { ROOT } from './lib/proc.js';
import { round } from './lib/stats.js';
import { type Gateway, type Sandbox, startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const calls = env('WAIT_CALLS', 1_000);
const lagMs = env('WAIT_LAG_MS', 20_000);
const rounds = env('WAIT_ROUNDS', 1);
const completionCalls = env('WAIT_COMPLETION', 0);
const CREDENTIALS = 20;
const log = (message: string) => process.stderr.write(`[waiting] ${message}\n`);

async function credential(sandbox: Sandbox, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { token: string }).token;
}

function summary(name: string, x: WaitingSample): string {
  return [
    `${name}: ${x.completed}/${x.calls} completed, all waiting after ${x.submittedMs} ms (${round(x.submitCpuMsPerCall, 2)} ms CPU/call)`,
    `heap/call ${round(x.heapPerCallKB, 1)} KB${x.heapSettled ? ' (settled)' : ' (/metrics)'}`,
    `RSS/call ${round(x.rssPerCallKB, 1)} KB, RSS peak ${round(x.rssPeakMB, 0)} MB`,
    `CPU ${round(x.cpuPercentWhileWaiting, 1)} % (${Math.round(x.cpuUsPerPollWhileWaiting)} µs per poll at ${round(x.pollsPerSecondWhileWaiting, 0)} polls/s)`,
    `polls/search ${round(x.pollsPerSearch, 2)} (bound ${round(x.pollBound, 1)}, by ${x.pollsCountedBy})`,
    `median wait ${x.medianWaitMs} ms; ${x.waitingAtHeapReading} waiting at the heap reading`,
  ].join('; ');
}

async function main() {
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : [ROOT];
  const work = mkdtempSync(join(tmpdir(), 'sim-waiting-'));
  try {
    const sandbox = await startSandbox();
    const tokens: string[] = [];
    for (let i = 0; i < CREDENTIALS; i++) tokens.push(await credential(sandbox, { credits: 1_000 }));
    const completionToken = await credential(sandbox, { credits: 1_000_000 });
    const firstDb = join(work, 'side-0.db');
    const data = await setupDatabase(firstDb, [completionToken, ...tokens], 0);
    const [completionGrant, ...grants] = data.grants;
    if (!completionGrant) throw new Error('no grant');
    const sides: Array<{ name: string; gateway: Gateway }> = [];
    for (const [i, dir] of dirs.entries()) {
      const databasePath = join(work, `side-${i}.db`);
      if (databasePath !== firstDb) copyFileSync(firstDb, databasePath);
      const gateway = await startGateway({
        databasePath,
        sandbox,
        logDir: work,
        entry: join(dir, 'dist', 'src', 'main.js'),
        nodeArgs: (process.env[`WAIT_NODE_ARGS_${i}`] ?? process.env.WAIT_NODE_ARGS ?? '')
          .split(' ')
          .filter(Boolean),
        ...(process.env.WAIT_SNAPSHOTS ? { env: { BENCH_HEAP_SNAPSHOTS: process.env.WAIT_SNAPSHOTS } } : {}),
      });
      sides.push({ name: `${basename(dir)}#${i}`, gateway });
    }
    const run = (side: { gateway: Gateway }, n: number, lag: number, slow = false) =>
      waitingCalls({
        gateway: {
          url: side.gateway.url,
          pid: side.gateway.proc.pid,
          settledHeap: side.gateway.settledHeap,
        },
        sandbox,
        grants,
        calls: n,
        lagMs: lag,
        ...(slow ? { slowBy: 'realistic' as const } : {}),
      });
    for (const side of sides) {
      log(`${side.name}: warm-up`);
      const warm = await run(side, 200, env('WAIT_WARM_LAG_MS', 10_000)).catch((error: unknown) => {
        log(`${side.name}: warm-up: ${String(error)}`);
        return null;
      });
      if (warm) log(summary(`${side.name} warm-up`, warm));
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        log(`${side.name}: round ${r + 1}/${rounds}, ${calls} calls, lag ${lagMs} ms`);
        const sample = await run(side, calls, lagMs, process.env.WAIT_SLOW === 'realistic').catch(
          (error: unknown) => {
            log(`${side.name}: ${String(error)}`);
            return null;
          },
        );
        if (sample) process.stdout.write(`${summary(side.name, sample)}\n`);
        // The next gateway starts on a quiet machine: this one's answers are written, its heap shrinks.
        await new Promise((r) => setTimeout(r, 5_000));
      }
    }
    if (completionCalls > 0) {
      for (const side of sides) {
        const c = await completionDelay({
          gatewayUrl: side.gateway.url,
          sandbox,
          grant: completionGrant,
          calls: completionCalls,
        });
        process.stdout.write(
          `${side.name}: completion delay p50 ${round(c.p50Ms, 0)} ms, p90 ${round(c.p90Ms, 0)} ms (${c.completed}/${c.calls})\n`,
        );
        await fetch(`${sandbox.searchUrl}/__sandbox/credentials/${completionGrant.upstreamToken}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ speed: 'instant' }),
        });
      }
    }
    for (const side of sides) await side.gateway.proc.stop();
    await sandbox.proc.stop();
  } finally {
    if (process.env.WAIT_KEEP) log(`scratch kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[waiting] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
