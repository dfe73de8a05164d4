import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway } from '../helpers/gateway.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { ROOT } from '../helpers/process.js';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Without OTEL_* variables the server loads no OpenTelemetry SDK and does no propagation work: the
 * real process, preloaded with a script that lists the @opentelemetry modules in Node's module cache
 * at exit, serves a traced 2025-era call; its upstream request carries no traceparent. The same
 * process with an endpoint lists the SDK (the check can fail).
 */

const dir = tempDir('sim-otel-off-');
const PRELOAD = join(ROOT, 'tests', 'telemetry', 'loaded-modules.mjs');
let sandbox: Sandbox;
let token: string;
const userId = `otel-off-${randomUUID()}`;

beforeAll(async () => {
  sandbox = await startSandbox();
  token = await sandbox.credential({ producer: true });
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  dir.remove();
});

/** Starts the server with `env`, makes one traced tool call, stops it; what it loaded and sent upstream. */
async function oneTracedCall(name: string, env: Record<string, string>) {
  const loadedFile = join(dir.path, `${name}.json`);
  const g = await spawnGateway({
    databasePath: join(dir.path, `${name}.db`),
    publicUrl: 'http://127.0.0.1',
    env: {
      UPSTREAM_SEARCH_URL: sandbox.searchUrl,
      UPSTREAM_AGENT_URL: sandbox.agentUrl,
      NODE_OPTIONS: `--import=${PRELOAD}`,
      LOADED_MODULES_FILE: loadedFile,
      ...env,
    },
  });
  const traceId = randomBytes(16).toString('hex');
  const client = new ClientV1({ name: 'otel-off', version: '1' });
  await client.connect(
    new TransportV1(new URL(`${g.url}/mcp`), {
      requestInit: {
        headers: {
          'X-SERVICE-TOKEN': token,
          'X-SERVICE-USER-ID': userId,
          traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        },
      },
    }),
  );
  const result = await client.callTool({ name: 'usage', arguments: {} });
  expect(result.isError).toBeFalsy();
  await client.close();
  g.proc.kill('SIGTERM');
  expect((await g.proc.exit()).code).toBe(0);
  const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
  const log = (await sandbox.control('GET', `/credentials/${token}/requests`)).body.requests as Array<{
    traceparent: string | null;
  }>;
  return { loaded, sentTrace: log.filter((r) => r.traceparent?.includes(traceId)), lines: g.proc.stdout() };
}

/** The OpenTelemetry packages loaded other than the API (prom-client requires the API for exemplars). */
const beyondTheApi = (loaded: string[]) =>
  [...new Set(loaded.map((p) => p.match(/@opentelemetry\/[^/]+/)?.[0]))].filter(
    (name) => name !== undefined && name !== '@opentelemetry/api',
  );

describe('telemetry off by default', () => {
  it('with no OTEL_* variable: no SDK module loaded, no traceparent sent upstream, no trace id logged', async () => {
    const off = await oneTracedCall('off', { LOG_LEVEL: 'debug' });
    expect(beyondTheApi(off.loaded)).toEqual([]);
    expect(off.sentTrace).toEqual([]);
    expect(off.lines).not.toContain('"trace_id"');
  });

  it('OTEL_SDK_DISABLED=true keeps it off even with an endpoint', async () => {
    const receiver = await startOtlpReceiver();
    const disabled = await oneTracedCall('disabled', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: 'true',
    });
    expect(beyondTheApi(disabled.loaded)).toEqual([]);
    expect(receiver.exports).toEqual([]);
    await receiver.close();
  });

  it('with an endpoint the same check lists the SDK, and the upstream request carries the trace', async () => {
    const receiver = await startOtlpReceiver();
    const on = await oneTracedCall('on', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(beyondTheApi(on.loaded)).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-metrics']),
    );
    expect(on.sentTrace.length).toBeGreaterThan(0);
    // Shutdown exported what was gathered.
    expect(receiver.exports.some((e) => e.path === '/v1/traces')).toBe(true);
    await receiver.close();
  });

  it('refuses to start on an OTLP protocol it cannot speak, naming the variable', async () => {
    await expect(
      spawnGateway({
        databasePath: join(dir.path, 'grpc.db'),
        publicUrl: 'http://127.0.0.1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      }),
    ).rejects.toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/);
  });
});
