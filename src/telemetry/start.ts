import { type TelemetryLog, type TelemetrySettings, telemetrySettings } from './wanted.js';

/*
 * Starts OpenTelemetry when the standard variables ask for it, and only then loads the SDK (a dynamic
 * import: an instance without an OTLP endpoint never has an @opentelemetry module in memory).
 */

export interface TelemetryHandle {
  /** Whether spans and metrics are exported. */
  on: boolean;
  /** Exports what is gathered and stops (at shutdown). */
  stop(): Promise<void>;
}

const OFF: TelemetryHandle = { on: false, stop: async () => {} };

export async function startTelemetry(
  env: Record<string, string | undefined>,
  log: TelemetryLog,
): Promise<TelemetryHandle> {
  const settings: TelemetrySettings | null = telemetrySettings(env);
  if (!settings) return OFF;
  const { startSdk } = await import('./sdk.js');
  const stop = startSdk(settings, log);
  return { on: true, stop };
}
