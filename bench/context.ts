/**
 * `npm run bench:context`: the context-cost figures alone (a few seconds), against the built gateway
 * and the sandbox as separate processes, like `npm run bench`. With `--save-before`, the figures are
 * written to bench/results/context-before.json, the reference later runs compare with (measured once,
 * on a chosen earlier commit).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BEFORE_FILE, contextRows, measureContextCost, readBefore } from './figures/context.js';
import { largestRows, measureLargestAnswers } from './figures/largest-answers.js';
import { table } from './report.js';
import { startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-context-'));
  try {
    const sandbox = await startSandbox();
    const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000, producer: true }),
    });
    const { token } = (await res.json()) as { token: string };
    // A second credential whose searches make 1,000 posts per platform: the largest answers.
    const big = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000, producer: true, synth_posts: 1_000 }),
    });
    const { token: bigToken } = (await big.json()) as { token: string };
    const data = await setupDatabase(join(work, 'bench.db'), [token, bigToken], 0);
    const gateway = await startGateway({ databasePath: join(work, 'bench.db'), sandbox, logDir: work });
    const grant = data.grants[0];
    if (!grant) throw new Error('no bench grant');
    const now = await measureContextCost(`${gateway.url}/mcp`, grant.accessToken);
    const bigGrant = data.grants[1];
    if (!bigGrant) throw new Error('no second bench grant');
    const largest = await measureLargestAnswers(`${gateway.url}/mcp`, bigGrant.accessToken);
    await gateway.proc.stop();
    await sandbox.proc.stop();
    if (process.argv.includes('--save-before')) {
      writeFileSync(BEFORE_FILE, `${JSON.stringify(now, null, 2)}\n`);
      process.stdout.write(`written to ${BEFORE_FILE}\n`);
    }
    process.stdout.write(`\n${table(contextRows(now, readBefore()))}\n`);
    process.stdout.write(`\n${table(largestRows(largest))}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
