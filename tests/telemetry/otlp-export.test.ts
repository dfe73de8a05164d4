import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, spawnGateway } from '../helpers/gateway.js';
import { eventually, type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { ROOT } from '../helpers/process.js';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/temp.js';

/**
 * OpenTelemetry as an operator turns it on: the real server process with OTEL_* variables and the
 * test's own OTLP/HTTP receiver, driven by real MCP clients of both eras over the two upstream
 * headers, against the sandbox process. The spans, the histogram and the log lines are read from
 * what the process exported and printed; the traceparent the upstream received from the sandbox's
 * request log.
 */

// biome-ignore lint/suspicious/noExplicitAny: the clients' results are read loosely
type Json = any;

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

const dir = tempDir('sim-otel-');
let sandbox: Sandbox;
let token: string;
const userId = `otel-user-${randomUUID()}`;
/** An argument value that must never be exported. */
const SECRET_ARGUMENT = `needle-${randomUUID()}`;

beforeAll(async () => {
  sandbox = await startSandbox();
  token = await sandbox.credential({ producer: true });
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  dir.remove();
});

function traceparent(): { traceId: string; parentId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
}

async function gateway(name: string, otel: Record<string, string>): Promise<Gateway> {
  return spawnGateway({
    databasePath: join(dir.path, `${name}.db`),
    publicUrl: 'http://127.0.0.1',
    env: {
      UPSTREAM_SEARCH_URL: sandbox.searchUrl,
      UPSTREAM_AGENT_URL: sandbox.agentUrl,
      LOG_LEVEL: 'debug',
      ...otel,
    },
  });
}

const upstreamHeaders = () => ({ 'X-SERVICE-TOKEN': token, 'X-SERVICE-USER-ID': userId });

async function v2Client(url: string): Promise<Json> {
  const client = new ClientV2({ name: 'otel-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new TransportV2(new URL(`${url}/mcp`), { requestInit: { headers: upstreamHeaders() } }),
  );
  return client;
}

async function v1Client(url: string, headers: Record<string, string>): Promise<Json> {
  const client = new ClientV1({ name: 'otel-v1', version: '1' });
  await client.connect(
    new TransportV1(new URL(`${url}/mcp`), {
      requestInit: { headers: { ...upstreamHeaders(), ...headers } },
    }),
  );
  return client;
}

async function requestLog(): Promise<Array<{ path: string; method: string; traceparent: string | null }>> {
  const reply = await sandbox.control('GET', `/credentials/${token}/requests`);
  return reply.body.requests;
}

describe('OTLP over http/json', () => {
  let receiver: OtlpReceiver;
  let g: Gateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    g = await gateway('json', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'mcp-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 60_000);
  afterAll(async () => {
    g?.proc.kill('SIGKILL');
    await receiver?.close();
  });

  it('a 2026-07-28 tools/call continues the trace in _meta; its upstream request carries the trace on', async () => {
    const client = await v2Client(g.url);
    const caller = traceparent();
    const result = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: SECRET_ARGUMENT },
      _meta: { traceparent: caller.header, tracestate: 'vendor=opaque' },
    });
    expect(result.isError).toBeFalsy();
    const server = await eventually(
      () => receiver.spans().find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND_SERVER),
      'the server span of the traced call',
    );
    expect(server.name).toBe('tools/call submit_keyword_search');
    expect(server.parentSpanId).toBe(caller.parentId);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'submit_keyword_search',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
    });
    expect(typeof server.attributes['jsonrpc.request.id']).toBe('string');
    expect(server.attributes['error.type']).toBeUndefined();
    expect(server.status.code ?? 0).not.toBe(STATUS_ERROR);
    expect(server.resource).toMatchObject({
      'service.name': 'mcp-under-test',
      'deployment.environment.name': 'test',
    });

    // The upstream POST: a CLIENT span under the server span (waits and polls under it too).
    const upstream = await eventually(
      () =>
        receiver
          .spans()
          .find(
            (s) => s.traceId === caller.traceId && s.kind === SPAN_KIND_CLIENT && s.name.startsWith('POST'),
          ),
      'the upstream span',
    );
    expect(upstream.name).toBe('POST /api/iq/keyword_search');
    expect(upstream.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'url.template': '/api/iq/keyword_search',
      'http.response.status_code': expect.any(Number),
    });
    expect(String(upstream.attributes['url.full'])).toBe(`${sandbox.searchUrl}/api/iq/keyword_search`);
    const inTrace = receiver.spans().filter((s) => s.traceId === caller.traceId);
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    // Every span of the call descends from the server span: the wait, its polls, the reads after it.
    expect(inTrace.map((s) => s.name)).toEqual(
      expect.arrayContaining(['wait keyword_search', 'GET /api/iq/keyword_search/{id}']),
    );
    for (const s of inTrace.filter((x) => x.spanId !== server.spanId)) {
      let up = byId.get(s.parentSpanId);
      while (up && up.spanId !== server.spanId) up = byId.get(up.parentSpanId);
      expect(up?.spanId, `${s.name} under the server span`).toBe(server.spanId);
    }
    // The sandbox received the client span's context as traceparent.
    const sent = (await requestLog()).find(
      (r) =>
        r.method === 'POST' && r.path === '/api/iq/keyword_search' && r.traceparent?.includes(caller.traceId),
    );
    expect(sent?.traceparent).toBe(`00-${caller.traceId}-${upstream.spanId}-01`);

    // The process's log lines written for this call name its trace.
    const lines = g.proc
      .stdout()
      .split('\n')
      .filter((l) => l.includes(caller.traceId))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => l.msg === 'upstream call' && typeof l.span_id === 'string')).toBe(true);
    await client.close();
  });

  it('a 2025-era call continues the traceparent header; a failed call is tool_error with an ERROR status', async () => {
    const caller = traceparent();
    const client = await v1Client(g.url, { traceparent: caller.header });
    const failed = await client.callTool({ name: 'get_keyword_search', arguments: { search_id: -5 } });
    expect(failed.isError).toBe(true);
    const spans = await eventually(() => {
      const found = receiver
        .spans()
        .filter((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND_SERVER);
      return found.some((s) => s.name === 'tools/call get_keyword_search') ? found : undefined;
    }, 'the 2025-era spans');
    // initialize, notifications/initialized and the call, each a span continuing the header's trace.
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call get_keyword_search']),
    );
    for (const s of spans) expect(s.parentSpanId).toBe(caller.parentId);
    const call = spans.find((s) => s.name === 'tools/call get_keyword_search') as Json;
    expect(call.attributes['error.type']).toBe('tool_error');
    expect(call.status.code).toBe(STATUS_ERROR);
    expect(call.attributes['mcp.protocol.version']).toMatch(/^2025-/);
    await client.close();
  });

  it('exports mcp.server.operation.duration by method, tool and error, and the upstream duration by endpoint', async () => {
    const ok = await eventually(
      () =>
        receiver
          .points('mcp.server.operation.duration')
          .find(
            (p) =>
              p.attributes['gen_ai.tool.name'] === 'submit_keyword_search' && !p.attributes['error.type'],
          ),
      'a successful tools/call in the histogram',
    );
    expect(ok.attributes['mcp.method.name']).toBe('tools/call');
    expect(ok.count).toBeGreaterThan(0);
    const failed = await eventually(
      () =>
        receiver
          .points('mcp.server.operation.duration')
          .find((p) => p.attributes['gen_ai.tool.name'] === 'get_keyword_search'),
      'the failed tools/call in the histogram',
    );
    expect(failed.attributes['error.type']).toBe('tool_error');
    const upstream = await eventually(
      () =>
        receiver
          .points('http.client.request.duration')
          .find((p) => p.attributes['url.template'] === '/api/iq/keyword_search'),
      'the upstream duration',
    );
    expect(upstream.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 201,
    });
  });

  it('no token, user id, password, cookie or argument value in any export', () => {
    expect(receiver.exports.length).toBeGreaterThan(0);
    for (const e of receiver.exports) {
      const text = e.body.toString('utf8');
      expect(text).not.toContain(token);
      expect(text).not.toContain(userId);
      expect(text).not.toContain(SECRET_ARGUMENT);
      expect(text.toLowerCase()).not.toContain('x-service-token');
      expect(text.toLowerCase()).not.toContain('cookie');
    }
  });
});

describe('OTLP over http/protobuf', () => {
  let receiver: OtlpReceiver;
  let g: Gateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    g = await gateway('proto', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 60_000);
  afterAll(async () => {
    g?.proc.kill('SIGKILL');
    await receiver?.close();
  });

  it('exports spans and metrics as protobuf, carrying the caller trace id and the span names', async () => {
    const client = await v2Client(g.url);
    const caller = traceparent();
    await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: SECRET_ARGUMENT },
      _meta: { traceparent: caller.header },
    });
    // Protobuf keeps trace ids as their 16 raw bytes and strings as UTF-8: both are found in the bodies.
    const traceExports = () => receiver.exports.filter((e) => e.path === '/v1/traces');
    const traces = await eventually(() => {
      const all = Buffer.concat(traceExports().map((e) => e.body));
      const complete = ['tools/call submit_keyword_search', 'POST /api/iq/keyword_search'].every((name) =>
        all.includes(Buffer.from(name)),
      );
      return complete && all.includes(Buffer.from(caller.traceId, 'hex')) ? traceExports() : undefined;
    }, 'protobuf trace exports with the trace id and both spans');
    for (const e of traces) expect(e.contentType).toBe('application/x-protobuf');
    const metrics = await eventually(
      () =>
        receiver.exports.find(
          (e) => e.path === '/v1/metrics' && e.body.includes(Buffer.from('mcp.server.operation.duration')),
        ),
      'a protobuf metrics export',
    );
    expect(metrics.contentType).toBe('application/x-protobuf');
    for (const e of receiver.exports) {
      expect(e.body.includes(Buffer.from(token))).toBe(false);
      expect(e.body.includes(Buffer.from(SECRET_ARGUMENT))).toBe(false);
    }
    await client.close();
  });
});

describe('OTLP from the local stdio server', () => {
  it('a tools/call over stdio continues the trace in _meta, as a pipe', async () => {
    const receiver = await startOtlpReceiver();
    const client = new ClientV1({ name: 'otel-stdio', version: '1' });
    await client.connect(
      new StdioV1({
        command: process.execPath,
        args: [join(ROOT, 'bin', 'social-intel-mcp.js'), 'stdio'],
        env: {
          PATH: process.env.PATH ?? '',
          UPSTREAM_SEARCH_URL: sandbox.searchUrl,
          UPSTREAM_AGENT_URL: sandbox.agentUrl,
          UPSTREAM_TOKEN: token,
          UPSTREAM_USER_ID: userId,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
        stderr: 'ignore',
      }),
    );
    const caller = traceparent();
    const result = await client.callTool({
      name: 'usage',
      arguments: {},
      _meta: { traceparent: caller.header },
    });
    expect(result.isError).toBeFalsy();
    const server = await eventually(
      () => receiver.spans().find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND_SERVER),
      'the stdio server span',
    );
    expect(server.name).toBe('tools/call usage');
    expect(server.parentSpanId).toBe(caller.parentId);
    expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe' });
    const upstream = await eventually(
      () => receiver.spans().find((s) => s.traceId === caller.traceId && s.kind === SPAN_KIND_CLIENT),
      'the stdio upstream span',
    );
    expect(upstream.parentSpanId).toBe(server.spanId);
    await client.close();
    await receiver.close();
  });
});
