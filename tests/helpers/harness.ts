import { createServer as createTcpServer, type Socket, connect as tcpConnect } from 'node:net';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpHandlerOptions } from '../../src/mcp/handler.js';
import type { Scope } from '../../src/oauth/scopes.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { issueTestToken } from './grants.js';
import { sandboxControl } from './sandbox-control.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The real pieces end to end: the sandbox over HTTP, the composed app with a real database, a real
 * grant and access token, /mcp with its bearer and scope checks, real SDK clients.
 */
/** Loosely typed JSON for assertions on sandbox records and tool results. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export type Json = any;

export interface Harness {
  sandbox: SandboxServer;
  server: TestServer;
  mcpUrl: string;
  logs: Array<Record<string, unknown>>;
  /** Every byte our server sent upstream (only with `captureUpstream`). */
  upstreamBytes(): string;
  /** A fresh sandbox credential (its own records, faults and request log). */
  credential(body?: {
    credits?: number;
    producer?: boolean;
    speed?: 'instant' | 'demo' | 'realistic';
    /** Synthetic posts per platform of this credential's searches (default 12–30). */
    synth_posts?: number;
  }): Promise<string>;
  token(options: {
    upstreamToken: string | null;
    scopes?: readonly Scope[];
    upstreamUserId?: string;
  }): Promise<string>;
  control(method: string, path: string, body?: unknown): Promise<Json>;
  close(): Promise<void>;
}

export const FAST: McpHandlerOptions = {
  pollInitialMs: 20,
  pollMaxMs: 100,
  // Polls fifty times as often as in production (every 100 ms at most, not 5 s): so may the budget.
  pollsPerSecond: 2_500,
  resultsGraceMs: 300,
  searchMaxWaitMs: 5_000,
  runMaxWaitMs: 5_000,
  upstreamBackoffMs: 10,
};

export async function startHarness(
  options: McpHandlerOptions = {},
  extras: { captureUpstream?: boolean } = {},
): Promise<Harness> {
  const sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  const relay = extras.captureUpstream ? await captureRelay(sandbox.searchUrl) : null;
  const upstream = relay
    ? { searchUrl: relay.url, agentUrl: `${relay.url}/agent` }
    : { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl };
  const server = await startTestServer({ upstream, mcpOptions: { ...FAST, ...options } });
  const control = sandboxControl(sandbox.searchUrl);
  return {
    sandbox,
    server,
    mcpUrl: `${server.url}/mcp`,
    logs: server.logs,
    upstreamBytes: () => relay?.bytes() ?? '',
    async credential(body = {}) {
      const created = await control('POST', '/credentials', body);
      return created.token as string;
    },
    async token(o) {
      const grant = await issueTestToken(server, {
        upstreamToken: o.upstreamToken,
        ...(o.scopes ? { scopes: o.scopes } : {}),
        upstreamUserId: o.upstreamUserId ?? 'analyst-1',
      });
      return grant.accessToken;
    },
    control,
    async close() {
      await server.close();
      await relay?.close();
      await sandbox.close();
    },
  };
}

export type AnyClient = {
  listTools(): Promise<{ tools: Array<{ name: string; [k: string]: unknown }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: Json): Promise<Json>;
  close(): Promise<void>;
};

/** The v2 client, negotiating the modern (2026-07-28) protocol. */
export async function connectV2(url: string, accessToken: string): Promise<AnyClient> {
  const client = new ClientV2(
    { name: 'test-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new TransportV2(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  return client as unknown as AnyClient;
}

/** The v1 client: the 2025-era protocol (initialize handshake, stateless legacy serving). */
export async function connectV1(url: string, accessToken: string): Promise<AnyClient> {
  const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
  const transport = new TransportV1(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  // v1's callTool takes (params, resultSchema, options): adapt to the v2 shape.
  return {
    listTools: () => client.listTools(),
    callTool: (params, options) => client.callTool(params, undefined, options),
    close: () => client.close(),
  } as AnyClient;
}

/** A client with every request method (resources, prompts, completion), either era's SDK. */
export type RawClient = {
  callTool(params: Json): Promise<Json>;
  listResourceTemplates(): Promise<Json>;
  readResource(params: { uri: string }): Promise<Json>;
  complete(params: Json): Promise<Json>;
  listPrompts(): Promise<Json>;
  getPrompt(params: Json): Promise<Json>;
  close(): Promise<void>;
};

const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

export async function rawV2(url: string, accessToken: string): Promise<RawClient> {
  const client = new ClientV2({ name: 'raw-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), bearer(accessToken)));
  return client as unknown as RawClient;
}

export async function rawV1(url: string, accessToken: string): Promise<RawClient> {
  const client = new ClientV1({ name: 'raw-v1', version: '1' });
  await client.connect(new TransportV1(new URL(url), bearer(accessToken)));
  return client as unknown as RawClient;
}

/** Parsed JSON at the end of a tool result's text block. */
export function textOf(result: { content?: Array<{ type: string; text?: string }> }): string {
  return (result.content ?? []).map((c) => c.text ?? '').join('\n');
}

/** The JSON a result's text ends with (inside the untrusted-content fence when it holds posts). */
export function jsonIn(text: string): string {
  return text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
}

/** A TCP relay in front of the sandbox that records what our server sends upstream. */
async function captureRelay(target: string) {
  const { hostname, port } = new URL(target);
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const relay = createTcpServer((inbound) => {
    const outbound = tcpConnect(Number(port), hostname);
    sockets.add(inbound).add(outbound);
    inbound.on('data', (chunk: Buffer) => chunks.push(chunk));
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    bytes: () => Buffer.concat(chunks).toString('latin1'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        relay.close(() => resolve());
      }),
  };
}
