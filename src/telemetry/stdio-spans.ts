import { context, type Histogram, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import type { StdioSpans } from './index.js';
import { mcpMessage, responseOutcome } from './mcp-message.js';
import { beginCall, type McpCall } from './server-spans.js';

/*
 * The MCP spans of one stdio connection: a request's span starts as its line is read and ends when the
 * answer with its id is written; a notification's covers its handling. Only `params._meta` can carry
 * the caller's trace here (there are no headers).
 */
export function stdioSpans(tracer: Tracer, duration: Histogram): StdioSpans {
  const open = new Map<string, McpCall>();
  let protocolVersion: string | undefined;
  return {
    inbound(message, handle) {
      const facts = mcpMessage(message);
      if (!facts) return handle();
      protocolVersion = facts.protocolVersion ?? protocolVersion;
      const transport = { network: 'pipe' as const, ambient: ROOT_CONTEXT, protocolVersion };
      const { call, context: ctx } = beginCall(tracer, duration, facts, transport);
      if (facts.id !== undefined) open.set(facts.id, call);
      try {
        context.with(ctx, handle);
      } finally {
        if (facts.id === undefined) call.end();
      }
    },
    outbound(message) {
      const outcome = responseOutcome(message);
      if (outcome?.id === undefined) return;
      const call = open.get(outcome.id);
      if (!call) return;
      open.delete(outcome.id);
      call.note(outcome);
      call.end();
    },
  };
}
