import { type AuthInfo, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../../src/logger.js';
import type { Caller } from '../../../src/mcp/auth/caller.js';
import { InflightCalls } from '../../../src/mcp/cancellation/inflight.js';
import { type CatalogDeps, type CompiledTool, compileTool } from '../../../src/mcp/catalog/catalog.js';
import { SERVER_INFO } from '../../../src/mcp/handler.js';
import { DirectCalls } from '../../../src/mcp/sdk-bypass/direct-call.js';
import { plainToolCall } from '../../../src/mcp/sdk-bypass/direct-wire.js';
import { DirectWaitingCall } from '../../../src/mcp/sdk-bypass/waiting-direct.js';
import { EVERY_TOOL } from '../../../src/mcp/tools/toolsets.js';
import { DEFAULT_TOOL_OPTIONS, defineTool, READ, type ToolDef } from '../../../src/mcp/tools/types.js';
import { TimerWheel } from '../../../src/mcp/waiting/timer-wheel.js';
import { WaitScheduler } from '../../../src/mcp/waiting/wait-scheduler.js';
import { createUpstreamClient } from '../../../src/upstream/client.js';

/**
 * The direct paths' way out (src/mcp/sdk-bypass/direct-call.ts, src/mcp/sdk-bypass/waiting-direct.ts): a result they do not
 * write themselves is answered by the SDK from the finished call, and the client cannot tell. Tools written for this test (no tool of
 * the catalog reports progress without waiting, or returns output its schema refuses) run on the real
 * SDK handler and on the direct path; both answers must be byte-identical, in both protocol eras.
 */
const logger = createLogger('silent');
const stop = new AbortController();
const deps: CatalogDeps = {
  upstream: createUpstreamClient({ searchUrl: 'http://127.0.0.1:9', agentUrl: 'http://127.0.0.1:9' }),
  publicUrl: 'https://mcp.example',
  tokenHeader: 'X-SERVICE-TOKEN',
  options: DEFAULT_TOOL_OPTIONS,
  audit: async () => {},
  logger,
  inflight: new InflightCalls(undefined, logger),
  stopWaiting: stop.signal,
  running: new Set(),
  waits: new WaitScheduler(DEFAULT_TOOL_OPTIONS, stop.signal),
};

const base = {
  title: 'Test tool',
  summary: 'A tool of this test.',
  description: 'A tool of this test.',
  scope: 'searches:read' as const,
  toolset: 'searches' as const,
  spendsCredits: false,
  input: z.strictObject({ n: z.number().optional() }),
  annotations: READ,
};
const TOOLS: ToolDef[] = [
  defineTool({
    ...base,
    name: 'breaks_its_schema',
    output: z.looseObject({ count: z.number() }),
    async run() {
      return { data: { count: 'many' }, text: 'Counted.' };
    },
  }),
  defineTool({
    ...base,
    name: 'reports_progress',
    output: z.looseObject({ done: z.boolean() }),
    async run(_args, ctx) {
      ctx.progress({ percentage: 50, phase: 'reading', message: 'half way' });
      ctx.progress({ percentage: 90, phase: 'reading', message: 'nearly' });
      return { data: { done: true }, text: 'Done.' };
    },
  }),
];
const compiled = new Map<string, CompiledTool>(TOOLS.map((def) => [def.name, compileTool(def, deps)]));

// The SDK's handler as src/mcp/handler.ts builds it: one tool registered per tools/call exchange.
const plans = new WeakMap<AuthInfo, CompiledTool>();
const handler = createMcpHandler(
  (ctx) => {
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
    const tool = ctx.authInfo ? plans.get(ctx.authInfo) : undefined;
    if (tool) server.registerTool(tool.name, tool.config, tool.handler as never);
    return server;
  },
  { legacy: 'stateless' },
);
const exchange = (request: Request, authInfo: AuthInfo, body: unknown, tool: CompiledTool) => {
  plans.set(authInfo, tool);
  return handler.fetch(request, { authInfo, parsedBody: body });
};
const directDeps = {
  exchange,
  catalog: deps,
  wheel: new TimerWheel(),
  keepAliveMs: 15_000,
  serverInfo: SERVER_INFO,
  logger,
};
const direct = new DirectCalls(directDeps);
afterAll(async () => {
  stop.abort();
  await handler.close();
});

const caller: Caller = {
  kind: 'member',
  connectionKey: 'grant-1',
  grantId: 'grant-1',
  userId: 'user-1',
  workspaceId: 'workspace-1',
  clientId: 'client-1',
  grantKind: 'oauth',
  selection: EVERY_TOOL,
  scopes: ['searches:read'],
  team: { role: 'owner', canChangeWebhook: null, membersReadTeamWork: true },
  upstream: { token: 'upstream-token', userId: 'analyst-1' },
};
const authInfo = (): AuthInfo => ({
  token: 't',
  clientId: 'client-1',
  scopes: ['searches:read'],
  extra: { caller },
});

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function request(era: 'modern' | 'legacy', name: string, progressToken?: number) {
  const meta = {
    ...(era === 'modern' ? MODERN_META : {}),
    ...(progressToken === undefined ? {} : { progressToken }),
  };
  const body = {
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name, arguments: { n: 1 }, ...(Object.keys(meta).length ? { _meta: meta } : {}) },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-06-18',
  };
  if (era === 'modern') Object.assign(headers, { 'mcp-method': 'tools/call', 'mcp-name': name });
  const make = () =>
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  return { body, make };
}

const seen = async (response: Response) => ({
  status: response.status,
  headers: [...response.headers],
  body: await response.text(),
});

/** The SDK's own answer to the call, and the request and plain call a direct path serves it from. */
async function bothWays(name: string, era: 'modern' | 'legacy', token: number | undefined) {
  const tool = compiled.get(name) as CompiledTool;
  const { body, make } = request(era, name, token);
  const sdk = await seen(await exchange(make(), authInfo(), body, tool));
  const req = make();
  const call = plainToolCall(req, body, name);
  expect(call?.era).toBe(era);
  return { tool, body, sdk, req, call };
}

describe('a result the direct path leaves to the SDK looks the same', () => {
  it.each([
    ['breaks_its_schema', 'modern', undefined],
    ['breaks_its_schema', 'legacy', undefined],
    ['reports_progress', 'modern', 7],
    ['reports_progress', 'legacy', 7],
    ['reports_progress', 'modern', undefined],
  ] as const)('%s, %s era, progress token %s', async (name, era, token) => {
    const def = TOOLS.find((t) => t.name === name) as ToolDef;
    const { tool, body, sdk, req, call } = await bothWays(name, era, token);
    const ours = await seen(
      await direct.serve({
        call: call as never,
        request: req,
        authInfo: authInfo(),
        parsedBody: body,
        def,
        tool,
      }),
    );
    expect(ours).toEqual(sdk);
    if (name === 'breaks_its_schema') expect(sdk.body).toContain('Output validation error');
    if (token !== undefined) expect(sdk.body).toContain('notifications/progress');
  });
});

describe('a waiting call whose result the direct path leaves to the SDK looks the same', () => {
  it.each([
    ['breaks_its_schema', 'modern', undefined],
    ['breaks_its_schema', 'legacy', undefined],
    ['breaks_its_schema', 'modern', 3],
    ['reports_progress', 'modern', 7],
    ['reports_progress', 'legacy', 7],
  ] as const)('%s, %s era, progress token %s', async (name, era, token) => {
    // As a waiting tool: the SDK frames the result, after what the call already sent itself.
    const def = { ...(TOOLS.find((t) => t.name === name) as ToolDef), waits: true as const };
    const { tool, body, sdk, req, call } = await bothWays(name, era, token);
    const waiting = new DirectWaitingCall(directDeps, {
      call: call as never,
      request: req,
      authInfo: authInfo(),
      parsedBody: body,
      def,
      tool,
    });
    expect(await seen(await waiting.serve())).toEqual(sdk);
    if (name === 'breaks_its_schema') expect(sdk.body).toContain('Output validation error');
  });
});
