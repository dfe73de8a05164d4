import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

/**
 * What one request can pin (docs/security.md, "Memory per request"): the real server, in a process of
 * its own with a small heap, is sent a few hundred oversized requests of each kind a cache could keep
 * (a task id, a 2026-07-28 envelope, a listing's `_meta`, a JSON-RPC id). It answers every one, answers
 * a normal request throughout, and once collected its heap is back near where it started. Before the
 * limits, such requests kept their text in caches keyed by it and the process ran out of memory.
 */
const HEAP_MB = 96;
const EACH = 240;
const MB = 2 ** 20;

let child: ChildProcess;
let lines: Interface;
let url: string;
let access: string;
const pending: Array<(line: string) => void> = [];

function nextLine(): Promise<string> {
  return new Promise((resolve) => pending.push(resolve));
}

async function heap(): Promise<number> {
  const line = nextLine();
  child.stdin?.write('heap\n');
  return (JSON.parse(await line) as { heap: number }).heap;
}

beforeAll(async () => {
  child = spawn(
    'node',
    [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', 'tests/security/fixtures/memory-server.ts'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => pending.shift()?.(line));
  const first = JSON.parse(await nextLine()) as { url: string; access: string };
  url = `${first.url}/mcp`;
  access = first.access;
}, 60_000);

afterAll(async () => {
  child?.stdin?.write('exit\n');
  if (child && child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
});

const LEGACY = { 'mcp-protocol-version': '2025-06-18' };
const ENVELOPE_KEY = 'io.modelcontextprotocol/clientInfo';

/** One POST to /mcp; its status (0 when the connection failed: the server died). */
async function post(body: string, headers: Record<string, string> = LEGACY): Promise<number> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** The tasks extension declared, so a tasks method reads the task id (a 2025-era client may declare it too). */
const DECLARED = {
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

const big = (i: number, bytes: number) => `${i}-${'x'.repeat(bytes)}`;

/** Each kind of oversized request, its i-th instance distinct from every other (no cache hit). */
const KINDS: Record<
  string,
  { body: (i: number) => string; headers?: (i: number) => Record<string, string> }
> = {
  'a 2025-era tasks/get with a huge task id': {
    body: (i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/get',
        params: { taskId: big(i, 500_000), _meta: DECLARED },
      }),
  },
  'a 2025-era tasks/cancel with a huge task id': {
    body: (i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/cancel',
        params: { taskId: big(i, 500_000), _meta: DECLARED },
      }),
  },
  'a 2026-07-28 tools/call whose envelope carries a huge clientInfo': {
    body: (i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'list_agent_runs',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            [ENVELOPE_KEY]: { name: big(i, 500_000), version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    headers: () => ({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'list_agent_runs',
    }),
  },
  'a tools/list with a huge _meta': {
    body: (i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { note: big(i, 250_000) } },
      }),
  },
  'a tools/list with a huge JSON-RPC id': {
    body: (i) => JSON.stringify({ jsonrpc: '2.0', id: big(i, 250_000), method: 'tools/list', params: {} }),
  },
};

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });

describe('memory one request can pin', () => {
  it('stays bounded under a few hundred oversized requests of each kind', async () => {
    expect(await post(LIST)).toBe(200);
    const baseline = await heap();
    for (const [kind, { body, headers }] of Object.entries(KINDS)) {
      const statuses = new Set<number>();
      for (let i = 0; i < EACH; i += 4) {
        const batch = [0, 1, 2, 3].map((k) => post(body(i + k), headers ? headers(i + k) : LEGACY));
        for (const status of await Promise.all(batch)) statuses.add(status);
        if (i % 40 === 0) expect(await post(LIST), kind).toBe(200);
      }
      expect(
        [...statuses].filter((s) => s === 0 || s >= 500),
        kind,
      ).toEqual([]);
      expect(await post(LIST), kind).toBe(200);
    }
    const after = await heap();
    expect((after - baseline) / MB).toBeLessThan(16);
  }, 600_000);
});
