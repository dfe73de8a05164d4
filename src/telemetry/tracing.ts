import { type Context, context, type Histogram, type Tracer, trace } from '@opentelemetry/api';
import { serveHttp } from './http-serving.js';
import type { OutcomeMark, Tracing } from './index.js';
import { activeCall, MCP_DURATION_BUCKETS } from './server-spans.js';
import { stdioSpans } from './stdio-spans.js';
import { upstreamAttempt } from './upstream-spans.js';
import { taskSpan, waitSpan } from './work-spans.js';

/** Upstream attempt durations' buckets (seconds): the HTTP conventions' advice. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const NO_FIELDS: Record<string, string> = {};

/** Methods whose failed outcome is a tool's (`tool_error`). */
const TOOL_WORK = new Set(['tools/call', 'task']);

export interface Instruments {
  tracer: Tracer;
  /** mcp.server.operation.duration */
  operations: Histogram;
  /** http.client.request.duration, of upstream attempts */
  upstream: Histogram;
}

export function instruments(
  tracer: Tracer,
  meter: { createHistogram: (name: string, options: object) => Histogram },
): Instruments {
  return {
    tracer,
    operations: meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request or notification duration as observed on the receiver.',
      advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS },
    }),
    upstream: meter.createHistogram('http.client.request.duration', {
      unit: 's',
      description: 'Duration of upstream API requests (each attempt).',
      advice: { explicitBucketBoundaries: HTTP_DURATION_BUCKETS },
    }),
  };
}

/** The Tracing the switch turns on (./index.ts), over the loaded SDK's tracer and meter. */
export function otelTracing(i: Instruments): Tracing {
  return {
    serveHttp: (request, body, outgoing, serve) =>
      serveHttp(i.tracer, i.operations, request, body, outgoing, serve),
    stdio: () => stdioSpans(i.tracer, i.operations),
    outcome<T extends OutcomeMark>(outcome: Promise<T>): Promise<T> {
      const call = activeCall();
      if (!call || !TOOL_WORK.has(call.method)) return outcome;
      return outcome.then((o) => {
        if (!o.ok) call.errorType ??= 'tool_error';
        return o;
      });
    },
    mark(outcome) {
      const call = activeCall();
      if (call && TOOL_WORK.has(call.method) && !outcome.ok) call.errorType ??= 'tool_error';
    },
    upstream: (method, url, headers, run, outcomeOf, failureOf) =>
      upstreamAttempt(i.tracer, i.upstream, method, url, headers, run, outcomeOf, failureOf),
    wait: (job, run, outcomeOf) => waitSpan(i.tracer, job, run, outcomeOf),
    active: () => context.active(),
    within: (ctx, run) => context.with(ctx as Context, run),
    taskWork: (tool, run) => taskSpan(i.tracer, tool, run),
    logFields(): Record<string, string> {
      const span = trace.getSpan(context.active());
      if (!span) return NO_FIELDS;
      const { traceId, spanId, traceFlags } = span.spanContext();
      return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
    },
  };
}
