/*
 * Whether OpenTelemetry is on, from the standard variables alone (the OpenTelemetry SDK environment
 * variable specification): an OTLP endpoint is set and OTEL_SDK_DISABLED is not true. Read before the
 * SDK is loaded, so an instance with none of them loads nothing.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TelemetrySettings {
  traces: boolean;
  metrics: boolean;
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** OTEL_METRIC_EXPORT_INTERVAL (default 60 s, the specification's). */
  metricIntervalMs: number;
}

type Env = Record<string, string | undefined>;

/** Where the SDK's own complaints go (an export that failed). */
export interface TelemetryLog {
  warn(obj: Record<string, unknown>, msg: string): void;
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

/** A variable this server cannot honour: the process refuses to start rather than export nothing. */
export class TelemetryConfigError extends Error {}

/** What to export, or null when telemetry is off. */
export function telemetrySettings(env: Env): TelemetrySettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const any = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = (any || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) && env.OTEL_TRACES_EXPORTER !== 'none';
  const metrics =
    (any || set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) && env.OTEL_METRICS_EXPORTER !== 'none';
  if (!traces && !metrics) return null;
  return {
    traces,
    metrics,
    tracesProtocol: protocol(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
    metricsProtocol: protocol(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'),
    metricIntervalMs: interval(env.OTEL_METRIC_EXPORT_INTERVAL),
  };
}

/** The mixin of trace ids in log lines is added only to a process that will trace. */
export function telemetryWanted(env: Env): boolean {
  return telemetrySettings(env) !== null;
}

function set(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** The signal's own variable first, then the general one; http/protobuf by default. */
function protocol(env: Env, signalVariable: string): OtlpProtocol {
  const own = env[signalVariable]?.trim();
  const name = own ? signalVariable : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = own || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf';
  if (!PROTOCOLS.includes(value))
    throw new TelemetryConfigError(
      `${name}: must be http/protobuf or http/json (got "${value.slice(0, 40)}"); grpc is not supported`,
    );
  return value as OtlpProtocol;
}

function interval(value: string | undefined): number {
  if (!set(value)) return 60_000;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new TelemetryConfigError(
      `OTEL_METRIC_EXPORT_INTERVAL: must be a whole number of milliseconds (got "${String(value).slice(0, 40)}")`,
    );
  return ms;
}
