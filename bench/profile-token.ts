/**
 * `npx tsx bench/profile-token.ts`: the gateway under `node --cpu-prof` while 16 refresh-token rotation
 * chains (bench/figures/token.ts) run for PROFILE_SECONDS (default 10); prints the functions with the
 * most self time, grouped by package or source file. PROFILE_DATABASE=postgres runs the gateway on a
 * throw-away PostgreSQL cluster instead of the SQLite file; PROFILE_OUT=<file> keeps the raw profile
 * (for Chrome DevTools, or a look at who calls what). For finding per-request work, not for figures
 * (the profiler slows everything down).
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDatabase,
  databaseUrl,
  type PostgresCluster,
  startPostgresCluster,
} from '../tests/helpers/postgres-cluster.js';
import { TOKEN_CONNECTIONS, tokenRound } from './figures/token.js';
import { summarizeProfile } from './lib/cpu-profile.js';
import { startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-prof-'));
  let cluster: PostgresCluster | undefined;
  try {
    const sandbox = await startSandbox();
    if (process.env.PROFILE_DATABASE === 'postgres') {
      cluster = await startPostgresCluster();
      await createDatabase(cluster.adminUrl, 'bench');
    }
    const where = {
      databasePath: join(work, 'bench.db'),
      ...(cluster ? { databaseUrl: databaseUrl(cluster.adminUrl, 'bench') } : {}),
    };
    const data = await setupDatabase(where, [sandbox.token], TOKEN_CONNECTIONS * 2);
    const profiled = join(work, 'profile');
    const gateway = await startGateway({
      databasePath: where.databasePath,
      sandbox,
      logDir: work,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profiled],
      env: where.databaseUrl ? { DATABASE_URL: where.databaseUrl } : {},
    });
    // Warm up (JIT, prepared statements), then the profiled run.
    await tokenRound(gateway.url, data.clientId, data.refreshPool, 1, gateway.proc.pid);
    const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
    const r = await tokenRound(gateway.url, data.clientId, data.refreshPool, seconds, gateway.proc.pid);
    process.stdout.write(
      `${r.requests} refresh grants after a 1 s warm-up, p50 ${r.p50.toFixed(2)} ms (profiled)\n`,
    );
    await gateway.proc.stop(10_000);
    await sandbox.proc.stop();
    process.stdout.write(summarizeProfile(profiled, r.requests));
    const out = process.env.PROFILE_OUT;
    const file = readdirSync(profiled).find((f) => f.endsWith('.cpuprofile'));
    if (out && file) copyFileSync(join(profiled, file), out);
  } finally {
    cluster?.stop();
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
