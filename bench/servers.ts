/** The processes under test: the sandbox, the built gateway in production mode, the baseline. */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { type Proc, ROOT, start, waitForOk } from './lib/proc.js';

export const PUBLIC_URL = 'https://bench.example';
/** A fixed 32-byte key: the bench database is thrown away after the run. */
export const SECRET_KEY = 'b'.repeat(64);
export const METRICS_TOKEN = 'bench-metrics-token-0123456789abcdef';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Sandbox {
  proc: Proc;
  searchUrl: string;
  agentUrl: string;
  token: string;
}

/**
 * `node --import tsx src/sandbox/main.ts` on a free port; parses the three lines it prints. Its jobs
 * finish at `speed` (instant unless told; a credential can set its own).
 */
export async function startSandbox(speed = 'instant'): Promise<Sandbox> {
  const proc = start('node', ['--import', 'tsx', 'src/sandbox/main.ts'], {
    SANDBOX_PORT: '0',
    SANDBOX_SPEED: speed,
  });
  const value = async (name: string) =>
    (await proc.waitForLine(new RegExp(`^${name}=`))).slice(name.length + 1);
  return {
    proc,
    searchUrl: await value('SEARCH_URL'),
    agentUrl: await value('AGENT_URL'),
    token: await value('TOKEN'),
  };
}

/**
 * The built gateway every figure starts: this checkout's, or with BENCH_GATEWAY_DIR another checkout's
 * (an earlier commit's worktree with `npm run build` done), so the same bench, on the same machine and
 * day, measures the code before a round of work for the table's "before" column.
 */
export function gatewayEntry(): string {
  const dir = process.env.BENCH_GATEWAY_DIR;
  return dir ? join(resolve(dir), 'dist', 'src', 'main.js') : 'dist/src/main.js';
}

export interface Gateway {
  proc: Proc;
  url: string;
  port: number;
  /** Milliseconds from spawn to the first /healthz 200. */
  startMs: number;
  /** The live heap after forced full collections (bench/lib/heap-probe.mjs). */
  settledHeap(): Promise<SettledHeap>;
}

export interface SettledHeap {
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  rss: number;
}

/**
 * The environment the Docker image sets for the process (Dockerfile `ENV`; tests/deploy checks the two
 * agree): glibc's arena cap is read at the process's first malloc, so it cannot be set from inside.
 */
export const PRODUCTION_ENV = { NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' } as const;

/** `node dist/src/main.js` as in production (NODE_ENV=production, https PUBLIC_URL, UPSTREAM_* set). */
export async function startGateway(options: {
  databasePath: string;
  sandbox: Sandbox;
  logDir: string;
  nodeArgs?: string[];
  /** The gateway's entry point (default: this checkout's dist/src/main.js). */
  entry?: string;
  /** A command the gateway runs under (e.g. a native memory profiler), before `node`. */
  wrap?: string[];
  env?: Record<string, string>;
}): Promise<Gateway> {
  const port = await freePort();
  const started = performance.now();
  // The heap probe: collections only when the bench asks (SIGUSR2), so no other figure changes.
  const heapFile = join(options.logDir, `heap-${port}.json`);
  const probe = ['--expose-gc', '--import', join(ROOT, 'bench', 'lib', 'heap-probe.mjs')];
  const [command = 'node', ...prefix] = [...(options.wrap ?? []), 'node'];
  const proc = start(
    command,
    [...prefix, ...probe, ...(options.nodeArgs ?? []), options.entry ?? gatewayEntry()],
    {
      BENCH_HEAP_FILE: heapFile,
      ...PRODUCTION_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL,
      SECRET_KEY,
      METRICS_TOKEN,
      DATABASE_PATH: options.databasePath,
      UPSTREAM_SEARCH_URL: options.sandbox.searchUrl,
      UPSTREAM_AGENT_URL: options.sandbox.agentUrl,
      ...options.env,
    },
    { logFile: join(options.logDir, `gateway-${port}.log`) },
  );
  const url = `http://127.0.0.1:${port}`;
  const startMs = await waitForOk(`${url}/healthz`, started);
  return { proc, url, port, startMs, settledHeap: () => readSettledHeap(proc.pid, heapFile) };
}

const lastReading = new Map<string, number>();

/** Asks the probe for a reading and waits for it (a full collection of a large heap takes a while). */
async function readSettledHeap(pid: number, file: string): Promise<SettledHeap> {
  const read = () =>
    existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SettledHeap & { reading: number }) : null;
  const before = lastReading.get(file) ?? 0;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    let current: (SettledHeap & { reading: number }) | null = null;
    try {
      current = read();
    } catch {
      // written as we read it: try again
    }
    if (current && current.reading > before) {
      lastReading.set(file, current.reading);
      const { heapUsed, external, arrayBuffers, rss } = current;
      return { heapUsed, external, arrayBuffers, rss };
    }
    if (Date.now() > deadline) throw new Error('the gateway did not answer the heap probe');
  }
}

/**
 * bench/baseline-server.ts: a bare Hono route on the same listen() settings; with `ceiling`, also a
 * route answering those bytes (POST /ceiling); with `floor`, a route passing one upstream GET through
 * (POST /floor).
 */
export async function startBaseline(
  ceiling?: { bodyFile: string; contentType: string },
  floor?: { url: string; headers: Record<string, string> },
): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = start('node', ['--import', 'tsx', 'bench/baseline-server.ts'], {
    PORT: String(port),
    ...(ceiling ? { CEILING_BODY_FILE: ceiling.bodyFile, CEILING_CONTENT_TYPE: ceiling.contentType } : {}),
    ...(floor ? { FLOOR_URL: floor.url, FLOOR_HEADERS: JSON.stringify(floor.headers) } : {}),
  });
  await proc.waitForLine(/^LISTENING /);
  return { proc, url: `http://127.0.0.1:${port}` };
}

/** The gateway's own heap figures, from /metrics (prom-client's default Node metrics). */
export async function gatewayHeap(url: string): Promise<{ used: number; total: number; external: number }> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    used: read('nodejs_heap_size_used_bytes'),
    total: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
  };
}
