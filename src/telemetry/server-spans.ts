import {
  type Context,
  context,
  createContextKey,
  type Histogram,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { McpMessage, ResponseOutcome } from './mcp-message.js';

/*
 * The MCP server span and the mcp.server.operation.duration histogram, as the OpenTelemetry semantic
 * conventions for MCP say (gen-ai/mcp.md, Server): named `{mcp.method.name} {target}`, SERVER kind,
 * the caller's `params._meta` context as parent (the transport's context linked), `error.type` and an
 * ERROR status for a failed operation (a tool result with isError is `tool_error`).
 */

/** One MCP operation being served: its span, and what it ends with. */
export class McpCall {
  errorType: string | undefined;
  rpcCode: string | undefined;
  private ended = false;

  constructor(
    readonly span: Span,
    readonly method: string,
    /** The JSON-RPC id its answer carries. */
    readonly id: string | undefined,
    private readonly metricAttributes: Record<string, string>,
    private readonly started: number,
    /** mcp.server.operation.duration; none for work that is not an MCP operation (a task's). */
    private readonly duration: Histogram | undefined,
  ) {}

  /** Takes what a response said (the first word wins: the tool's own mark comes before its bytes). */
  note(outcome: ResponseOutcome): void {
    this.errorType ??= outcome.errorType;
    this.rpcCode ??= outcome.rpcCode;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const attributes = { ...this.metricAttributes };
    if (this.rpcCode !== undefined) this.span.setAttribute('rpc.response.status_code', this.rpcCode);
    if (this.errorType !== undefined) {
      attributes['error.type'] = this.errorType;
      this.span.setAttribute('error.type', this.errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: this.errorType });
    }
    this.span.end();
    this.duration?.record((performance.now() - this.started) / 1000, attributes);
  }
}

/** The MCP operation the active context belongs to (a request's, or a task's work). */
export const MCP_CALL = createContextKey('social-intel-mcp operation');

export function activeCall(): McpCall | undefined {
  return context.active().getValue(MCP_CALL) as McpCall | undefined;
}

/** The W3C trace context keys of a `_meta` or header carrier, read case-sensitively. */
const metaGetter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

export interface Transport {
  /** `tcp` for Streamable HTTP, `pipe` for stdio (gen-ai/mcp.md, network.transport). */
  network: 'tcp' | 'pipe';
  /** The context the transport carried (the HTTP traceparent header), or the root. */
  ambient: Context;
  /** The MCP-Protocol-Version header, when the message does not say. */
  protocolVersion: string | undefined;
}

/** Starts the span of one MCP request or notification; the context to serve it in. */
export function beginCall(
  tracer: Tracer,
  duration: Histogram,
  message: McpMessage,
  transport: Transport,
): { call: McpCall; context: Context } {
  const links: Link[] = [];
  let parent = transport.ambient;
  if (message.carrier) {
    parent = propagation.extract(ROOT_CONTEXT, message.carrier, metaGetter);
    const ambient = trace.getSpanContext(transport.ambient);
    if (ambient) links.push({ context: ambient });
  }
  const target = message.tool ?? message.prompt;
  const version = message.protocolVersion ?? transport.protocolVersion;
  const metricAttributes: Record<string, string> = {
    'mcp.method.name': message.method,
    'network.transport': transport.network,
  };
  if (message.tool) {
    metricAttributes['gen_ai.tool.name'] = message.tool;
    metricAttributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (message.prompt) metricAttributes['gen_ai.prompt.name'] = message.prompt;
  if (version) metricAttributes['mcp.protocol.version'] = version;
  const attributes: Record<string, string> = { ...metricAttributes };
  if (message.id !== undefined) attributes['jsonrpc.request.id'] = message.id;
  if (message.resourceUri) attributes['mcp.resource.uri'] = message.resourceUri;
  if (transport.network === 'tcp') attributes['network.protocol.name'] = 'http';
  const span = tracer.startSpan(
    target ? `${message.method} ${target}` : message.method,
    { kind: SpanKind.SERVER, attributes, links },
    parent,
  );
  const call = new McpCall(span, message.method, message.id, metricAttributes, performance.now(), duration);
  return { call, context: trace.setSpan(parent, span).setValue(MCP_CALL, call) };
}

/** Histogram buckets the conventions advise for MCP operation durations (seconds). */
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
