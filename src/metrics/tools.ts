import { Counter, Gauge } from 'prom-client';
import { registry } from './registry.js';

export const toolCalls = new Counter({
  name: 'mcp_tool_calls_total',
  help: 'MCP tool calls, by tool and outcome: the audit status (ok, invalid, refused, cancelled, error, or the upstream HTTP status).',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});

export const waitingCalls = new Gauge({
  name: 'mcp_waiting_calls',
  help: 'Tool calls in flight that are waiting for an upstream search or agent run to finish.',
  registers: [registry],
});
