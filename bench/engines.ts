/**
 * `npx tsx bench/engines.ts`: only the engines figures of `npm run bench` (bench/figures/engines.ts):
 * refresh grants per second and tools/list on the SQLite file, on PostgreSQL and on two
 * gateways sharing PostgreSQL, with this checkout's build. BENCH_ROUNDS (default 3) and BENCH_SECONDS
 * (default 5) as in bench/run.ts; the table goes to stdout, nothing is written to bench/results.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineFigures } from './figures/engines.js';
import { table } from './report.js';
import { startSandbox } from './servers.js';

const log = (message: string) => process.stderr.write(`[engines] ${message}\n`);

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-engines-'));
  const sandbox = await startSandbox();
  try {
    const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000_000, producer: true }),
    });
    const upstreamToken = ((await res.json()) as { token: string }).token;
    const rows = await engineFigures({
      sandbox,
      upstreamToken,
      work,
      rounds: Number(process.env.BENCH_ROUNDS ?? 3),
      seconds: Number(process.env.BENCH_SECONDS ?? 5),
      log,
    });
    process.stdout.write(`\n${table(rows)}\n`);
  } finally {
    await sandbox.proc.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
