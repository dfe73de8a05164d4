import { context, type Link, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { MCP_CALL, McpCall } from './server-spans.js';

/*
 * Long work as spans: a wait for an upstream job (its polls, upstream CLIENT spans, are its children,
 * though the shared scheduler runs them from its timer: it keeps the context of the wait that started
 * the job), and a task's background work (a trace of its own, linked to the request that created it).
 */

export async function waitSpan<T>(
  tracer: Tracer,
  job: string,
  run: () => Promise<T>,
  outcomeOf: (result: T) => string,
): Promise<T> {
  const kind = job.split(':')[0]?.slice(0, 40) || 'job';
  const span = tracer.startSpan(`wait ${kind}`, { attributes: { 'social_intel.job.kind': kind } });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    span.setAttribute('social_intel.wait.outcome', outcomeOf(result));
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
    throw error;
  } finally {
    span.end();
  }
}

export async function taskSpan<T>(tracer: Tracer, tool: string, run: () => Promise<T>): Promise<T> {
  const creator = trace.getSpanContext(context.active());
  const links: Link[] = creator ? [{ context: creator }] : [];
  const attributes = { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' };
  const span = tracer.startSpan(`task ${tool}`, { kind: SpanKind.INTERNAL, root: true, links, attributes });
  const call = new McpCall(
    span,
    'task',
    undefined,
    { 'mcp.method.name': 'task', ...attributes },
    performance.now(),
    undefined,
  );
  try {
    return await context.with(trace.setSpan(context.active(), span).setValue(MCP_CALL, call), run);
  } catch (error) {
    call.errorType ??= error instanceof Error ? error.name : 'error';
    throw error;
  } finally {
    call.end();
  }
}
