import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openMigratedStore } from './db/store/index.js';
import { collectNow, DEFAULT_IDLE_GC, startIdleGc } from './housekeeping/idle-gc.js';
import { startHousekeeping } from './housekeeping/index.js';
import { NATIVE_HEAP_TRIM_MS, startNativeHeapTrimmer } from './housekeeping/native-heap.js';
import { batchedDestination, createConfiguredLogger } from './logger.js';
import { SecretBox } from './security/secrets.js';
import { listen } from './server.js';
import { startTelemetry } from './telemetry/start.js';
import { TelemetryConfigError, telemetrySettings } from './telemetry/wanted.js';
import { startUpstream } from './upstream-target.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  let traced: boolean;
  try {
    config = loadConfig();
    traced = telemetrySettings(process.env) !== null;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TelemetryConfigError) {
      process.stderr.write(`social-intel-mcp: cannot start, ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createConfiguredLogger(config, batchedDestination(), { traced });
  // OpenTelemetry only when an OTLP endpoint is configured (telemetry/wanted.ts); nothing loaded otherwise.
  const telemetry = await startTelemetry(process.env, logger);
  // Migrations first (on PostgreSQL under an advisory lock, so instances starting together apply them once).
  const { store: db, applied } = await openMigratedStore(
    { databaseUrl: config.databaseUrl ?? undefined, databasePath: config.databasePath },
    {
      max: config.databasePoolSize,
      prepare: config.databasePrepare,
      // The root-handle-in-transaction check costs promise hooks on every promise (store/transaction-scope.ts);
      // tests and development keep it, production does not pay for it.
      scopeChecks: config.nodeEnv !== 'production',
    },
  );
  // Never the URL: it carries the password.
  logger.info(
    config.databaseUrl
      ? { engine: db.engine, migrationsApplied: applied }
      : { engine: db.engine, databasePath: config.databasePath, migrationsApplied: applied },
    'database ready',
  );

  const upstream = await startUpstream(config);
  if (config.sandboxMode) {
    logger.warn(
      { searchUrl: upstream.searchUrl, agentUrl: upstream.agentUrl, speed: config.sandboxSpeed },
      'sandbox mode: no UPSTREAM_SEARCH_URL/UPSTREAM_AGENT_URL set, tools use the built-in emulator',
    );
  }

  const { app, close: closeApp } = createApp({
    config,
    db,
    logger,
    secrets: new SecretBox(config.secretKeys),
    upstream,
  });
  // What loading and building everything left behind is collected before the first request: an idle
  // instance holds only what it uses (housekeeping/idle-gc.ts).
  await collectNow();
  const server = await listen(app, config.port, config.host);
  const stopIdleGc = startIdleGc(DEFAULT_IDLE_GC, (before, after) =>
    logger.info(
      { heapBeforeMb: Math.round(before / 2 ** 20), heapAfterMb: Math.round(after / 2 ** 20) },
      'load has passed: memory given back',
    ),
  );
  const stopTrimming = startNativeHeapTrimmer(NATIVE_HEAP_TRIM_MS);
  const stopHousekeeping = startHousekeeping(db, logger, config.housekeepingIntervalMs, {
    auditRetentionDays: config.auditRetentionDays,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    stopHousekeeping();
    stopIdleGc();
    stopTrimming();
    // Waiting tool calls end first (they return their handles), so the server's drain is short.
    await closeApp();
    await server.close(config.shutdownGraceMs);
    await upstream.close();
    await db.close();
    await telemetry.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Only once the signals are ours: a supervisor that stops the process as soon as it reads this line
  // would otherwise meet the default action (killed, nothing closed). Written at once: deploys,
  // supervisors and tests wait for this line.
  logger.info({ url: config.publicUrl, port: server.port }, 'listening');
  logger.flush();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `social-intel-mcp: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
