import { context, type Histogram, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { AttemptOutcome } from './index.js';

/*
 * One upstream HTTP attempt as a CLIENT span (the HTTP client semantic conventions): method, the URL
 * without credentials or query values, the server, the status; the trace context sent on as
 * `traceparent` (W3C Trace Context only: the caller's baggage is not the upstream's business), and
 * http.client.request.duration by endpoint template and status.
 */

const traceContext = new W3CTraceContextPropagator();
const headerSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

export async function upstreamAttempt<T>(
  tracer: Tracer,
  duration: Histogram,
  method: string,
  url: string,
  headers: Record<string, string>,
  run: () => Promise<T>,
  outcomeOf: (result: T) => AttemptOutcome,
  failureOf: (error: unknown) => string,
): Promise<T> {
  const target = describeUrl(url);
  const common: Record<string, string | number> = {
    'http.request.method': method,
    'server.address': target.address,
    'server.port': target.port,
    'url.template': target.template,
  };
  const span = tracer.startSpan(`${method} ${target.template}`, {
    kind: SpanKind.CLIENT,
    attributes: { ...common, 'url.full': target.full },
  });
  traceContext.inject(trace.setSpan(context.active(), span), headers, headerSetter);
  const started = performance.now();
  const finish = (status: number | undefined, errorType: string | undefined) => {
    const attributes = { ...common };
    if (status !== undefined) {
      attributes['http.response.status_code'] = status;
      span.setAttribute('http.response.status_code', status);
    }
    if (errorType !== undefined) {
      attributes['error.type'] = errorType;
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    span.end();
    duration.record((performance.now() - started) / 1000, attributes);
  };
  try {
    const result = await run();
    const outcome = outcomeOf(result);
    if ('status' in outcome)
      finish(outcome.status, outcome.status >= 400 ? String(outcome.status) : undefined);
    else finish(undefined, outcome.failure);
    return result;
  } catch (error) {
    finish(undefined, failureOf(error));
    throw error;
  }
}

/**
 * The URL as a span may show it: no user info, every query value replaced (they are a tool's
 * arguments); the endpoint template with id segments as `{id}` (one series per endpoint, not per job).
 */
export function describeUrl(url: string): { full: string; template: string; address: string; port: number } {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  for (const key of new Set(u.searchParams.keys())) u.searchParams.set(key, 'REDACTED');
  const template = u.pathname
    .split('/')
    .map((segment) => (/\d/.test(segment) && !/^v\d+$/.test(segment) ? '{id}' : segment))
    .join('/');
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { full: u.toString(), template, address: u.hostname, port };
}
