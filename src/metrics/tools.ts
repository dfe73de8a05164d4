import { Counter, Gauge } from 'prom-client';
import { registry } from './registry.js';

/** Outcomes of a tool call: a result, an isError result (upstream refused, bad input), a handle returned after the wait, or a throw. */
export type ToolOutcome = 'ok' | 'error' | 'pending' | 'cancelled' | 'exception';

export const toolCalls = new Counter({
  name: 'mcp_tool_calls_total',
  help: 'MCP tool calls, by tool and outcome (ok, error, pending, cancelled, exception).',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});

export const waitingCalls = new Gauge({
  name: 'mcp_waiting_calls',
  help: 'Tool calls in flight that are waiting for an upstream search or agent run to finish.',
  registers: [registry],
});
