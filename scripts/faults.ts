/**
 * `npm run faults`: the fault suite at realistic timings, run by hand (about twenty minutes of wall
 * time, little CPU): the server with its default waits (45 s) and upstream timeout (30 s), the sandbox
 * at its realistic pace, every fault kind (~20 s per upstream request, 5xx bursts, 429 with
 * Retry-After, resets, a create whose answer is lost or late, hangs, down for a minute) with the v1
 * and v2 SDK clients (default options) and a tasks client, all at once. `npm run faults -- --short`
 * runs the shortened timings of tests/reliability/fault-suite.test.ts (a 3 s wait limit, about a
 * minute). Prints the report (tests/helpers/fault-suite.ts: reportTable) and exits non-zero when a
 * call was late or unanswered, work did not reach its result, or upstream created more or less work
 * than was asked for. `--only <fault name>,…` narrows to some fault kinds.
 */
import {
  FAULT_KINDS,
  REALISTIC,
  reportTable,
  rowPasses,
  runFaultSuite,
  SHORT,
  serverOptions,
} from '../tests/helpers/fault-suite.js';
import { startHarness } from '../tests/helpers/harness.js';

const log = (message: string) => process.stderr.write(`[faults] ${message}\n`);

async function main() {
  const args = process.argv.slice(2);
  const timing = args.includes('--short') ? SHORT : REALISTIC;
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : null;
  const kinds = only ? FAULT_KINDS.filter((k) => only.includes(k.name)) : FAULT_KINDS;
  // The realistic run polls at the production pace: startHarness's fast test values are overridden.
  const harness = await startHarness({
    ...serverOptions(timing),
    ...(timing === REALISTIC ? { pollInitialMs: 500, pollMaxMs: 5_000, resultsGraceMs: 45_000 } : {}),
  });
  const began = Date.now();
  log(`${timing.name} timings, ${kinds.length} fault kinds × 3 clients, all at once`);
  try {
    const rows = await runFaultSuite(harness, timing, kinds);
    process.stdout.write(`${reportTable(timing, rows)}\n\n`);
    const failing = rows.filter((r) => !rowPasses(r));
    for (const r of failing) process.stdout.write(`- ${r.fault}, ${r.client}: ${r.problems.join('; ')}\n`);
    process.stdout.write(
      `${failing.length === 0 ? 'PASSED' : `FAILED (${failing.length} of ${rows.length})`} in ${Math.round((Date.now() - began) / 1000)} s\n`,
    );
    process.exitCode = failing.length === 0 ? 0 : 1;
  } finally {
    await harness.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
