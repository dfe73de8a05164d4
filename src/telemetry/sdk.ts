import { context, DiagLogLevel, diag, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { otel } from './index.js';
import { instruments, otelTracing } from './tracing.js';
import type { TelemetryLog, TelemetrySettings } from './wanted.js';

/*
 * The OpenTelemetry SDK, loaded only when telemetry is on (./start.ts imports this module
 * dynamically). Everything else is the standard variables, read by the SDK itself: the endpoints and
 * OTEL_EXPORTER_OTLP_HEADERS by the exporters, OTEL_TRACES_SAMPLER(_ARG) and the span limits by the
 * tracer provider, OTEL_BSP_* by the batch processor, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
 * by the environment detector.
 */

export const SERVICE_NAME = 'social-intel-mcp';

/** Starts exporting and turns the switch on; the returned function flushes and stops. */
export function startSdk(settings: TelemetrySettings, log: TelemetryLog): () => Promise<void> {
  // Export failures reach the operator as warnings (never the headers the exporter sent).
  diag.setLogger(
    {
      error: (message) => log.warn({ component: 'otel' }, message),
      warn: (message) => log.warn({ component: 'otel' }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: settings.traces
      ? [
          new BatchSpanProcessor(
            settings.tracesProtocol === 'http/json' ? new JsonTraceExporter() : new ProtoTraceExporter(),
          ),
        ]
      : [],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: settings.metrics
      ? [
          new PeriodicExportingMetricReader({
            exporter:
              settings.metricsProtocol === 'http/json' ? new JsonMetricExporter() : new ProtoMetricExporter(),
            exportIntervalMillis: settings.metricIntervalMs,
            exportTimeoutMillis: Math.min(30_000, settings.metricIntervalMs),
          }),
        ]
      : [],
  });
  // Registered globally as well, so a library that traces with the API joins the same traces.
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  context.setGlobalContextManager(contextManager);
  otel.t = otelTracing(
    instruments(tracerProvider.getTracer(SERVICE_NAME), meterProvider.getMeter(SERVICE_NAME)),
  );
  otel.on = true;
  return async () => {
    otel.on = false;
    await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
  };
}
