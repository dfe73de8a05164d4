import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  body: any;
}

export interface CallOptions {
  token?: string | null;
  userId?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface Sandbox {
  searchUrl: string;
  agentUrl: string;
  token: string;
  proc: ChildProcess;
  stop(): Promise<number | null>;
  search(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  agent(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  control(method: string, path: string, body?: unknown): Promise<Reply>;
  /** A fresh credential (isolates tests from each other's credits and records). */
  credential(opts?: { credits?: number; producer?: boolean; speed?: string }): Promise<string>;
  advance(ms: number): Promise<void>;
}

async function call(base: string, method: string, path: string, opts: CallOptions, defaultToken: string) {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? defaultToken : opts.token;
  if (token !== null) headers['X-SERVICE-TOKEN'] = token;
  const userId = opts.userId === undefined ? 'user-1' : opts.userId;
  if (userId !== null) headers['X-SERVICE-USER-ID'] = userId;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * Starts the real sandbox process (src/sandbox/main.ts, as `npm run sandbox` does) on an ephemeral
 * port and parses the three lines it prints.
 */
export async function startSandbox(env: Record<string, string> = {}): Promise<Sandbox> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_SPEED: 'instant', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const lines = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${err}`)), 30_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const found = Object.fromEntries(
        out
          .split('\n')
          .map((l) => l.match(/^(SEARCH_URL|AGENT_URL|TOKEN)=(.+)$/))
          .filter((m): m is RegExpMatchArray => m !== null)
          .map((m) => [m[1], m[2]]),
      );
      if (found.SEARCH_URL && found.AGENT_URL && found.TOKEN) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited early (${code}): ${err}`));
    });
  });
  const searchUrl = lines.SEARCH_URL as string;
  const agentUrl = lines.AGENT_URL as string;
  const token = lines.TOKEN as string;
  const sbx: Sandbox = {
    searchUrl,
    agentUrl,
    token,
    proc,
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const [code] = (await once(proc, 'exit')) as [number | null];
      return code;
    },
    search: (method, path, opts = {}) => call(searchUrl, method, path, opts, token),
    agent: (method, path, opts = {}) => call(agentUrl, method, path, opts, token),
    control: (method, path, body) =>
      call(searchUrl, method, `/__sandbox${path}`, { token: null, userId: null, body }, token),
    async credential(opts = {}) {
      const res = await sbx.control('POST', '/credentials', opts);
      if (res.status !== 201) throw new Error(`credential: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    async advance(ms) {
      const res = await sbx.control('POST', '/clock', { advance_ms: ms });
      if (res.status !== 200) throw new Error(`clock: ${res.status}`);
    },
  };
  return sbx;
}

export const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asserts every key is present with the given typeof (or 'null', 'array', 'integer'). */
export function expectFields(
  obj: Record<string, unknown>,
  spec: Record<string, string | string[]>,
): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(spec)) {
    const wants = Array.isArray(want) ? want : [want];
    if (!(key in obj)) {
      problems.push(`${key}: missing`);
      continue;
    }
    const v = obj[key];
    const kinds = [
      v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v,
      ...(typeof v === 'number' && Number.isInteger(v) ? ['integer'] : []),
      ...(typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? ['numeric-string'] : []),
    ];
    if (!wants.some((w) => kinds.includes(w)))
      problems.push(`${key}: ${kinds[0]} (${JSON.stringify(v)}), want ${wants.join('|')}`);
  }
  return problems;
}
