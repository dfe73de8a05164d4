import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installPackage,
  packBundle,
  packPackage,
  runStep,
  stageBundle,
} from '../../scripts/package-steps.js';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { ROOT } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The package as people get it: `npm pack` of a copy of this checkout (prepack empties and rebuilds
 * dist/, which the other tests read in the checkout itself), the tarball's contents, `npm publish
 * --dry-run`, the tarball installed without dev dependencies into an empty folder and run there with
 * `npx social-intel-mcp` (stdio with the v2 and v1 clients, `serve`), and the MCP Bundle made from that
 * install, started as a host starts it. Slow by nature (a build, a pack, an install): one file, run once.
 */
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const work = tempDir('sim-package-');
const app = join(work.path, 'app');
const MAX_PACKED_BYTES = 5 * 1024 * 1024;
/**
 * For a test that starts `npx`: npx itself (npm, resolving the installed package) takes 10 to 40 s
 * to reach the server on a loaded 2-core machine, before the server's own start.
 */
const NPX_TEST_MS = 180_000;
/** The tool names of the catalog: what every way of installing must serve. */
const CATALOG = ALL_TOOLS.map((t) => t.name).sort();
const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

let tarball: string;
let files: string[];
const children: ChildProcess[] = [];

/** The checkout's top-level entries a copy to pack from leaves out: installed, built or local. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', 'test-results']);

/**
 * The SQLite addon this checkout already built, offered to the install as a local prebuild (the
 * addon's installer looks for one by this name before downloading or compiling), so the test does not
 * compile SQLite again; a person's install downloads the same file from the addon's releases.
 */
function localPrebuilds(): NodeJS.ProcessEnv {
  const dir = join(work.path, 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const addon = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(addon, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  runStep('tar', ['-czf', join(dir, name), 'build/Release/better_sqlite3.node'], addon);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

beforeAll(() => {
  const source = join(work.path, 'source');
  cpSync(ROOT, source, {
    recursive: true,
    filter: (path) => !NOT_COPIED.has(relative(ROOT, path).split(/[\\/]/)[0] ?? ''),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  tarball = packPackage(source, join(work.path, 'pack'));
  files = runStep('tar', ['-tzf', tarball], work.path)
    .split('\n')
    .filter((line) => line && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));
  installPackage(tarball, app, localPrebuilds());
}, 900_000);

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  work.remove();
});

describe('the tarball', () => {
  it('holds only what runs: the compiled server, the built views, migrations, the launcher, README and licence', () => {
    const allowed =
      /^(bin\/[^/]+\.js|dist\/src\/.+\.js|dist\/views\/[a-z-]+\.html|migrations\/.+\.(sql|json)|README\.md|LICENSE|package\.json|manifest\.json)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    for (const needed of [
      'bin/social-intel-mcp.js',
      'dist/src/cli/main.js',
      'dist/src/stdio/main.js',
      'dist/src/main.js',
      'dist/views/search.html',
      'migrations/meta/_journal.json',
      'migrations/postgres/meta/_journal.json',
      'LICENSE',
    ])
      expect(files).toContain(needed);
  });

  it('holds no tests, benchmarks, CI files, sources, data or keys', () => {
    const places = /(^|\/)(tests?|bench|\.ci|\.github|scripts|data|node_modules)\//;
    const kinds = /(\.(ts|tsx|map|db|db-wal|db-shm|key|pem|env|tgz|mcpb)|_snapshot\.json)$/;
    expect(files.filter((f) => places.test(f) || kinds.test(f))).toEqual([]);
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
  });

  it('is at most 5 MB', () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(MAX_PACKED_BYTES);
  });

  it('passes `npm publish --dry-run`, with no warning but the one about not being signed in', () => {
    const output = runStep('npm', ['publish', '--dry-run', tarball], work.path);
    expect(output).toContain(`+ ${pkg.name}@${pkg.version}`);
    const warnings = output.split('\n').filter((l) => /npm warn/i.test(l) && !/logged in/.test(l));
    expect(warnings).toEqual([]);
  });
});

describe('installed without dev dependencies, in an empty folder', () => {
  const installed = () => join(app, 'node_modules', pkg.name);

  it('has no TypeScript tooling, and its compiled code imports nothing but dependencies and Node', () => {
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
    const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules]);
    // Static imports and re-exports at the start of a line (as tsc writes them), and dynamic imports.
    const specifiers =
      /^\s*(?:import|export)\s(?:[^;'"]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
    const outside: string[] = [];
    const compiled = join(installed(), 'dist', 'src');
    for (const name of readdirSync(compiled, { recursive: true }) as string[]) {
      if (!name.endsWith('.js')) continue;
      const text = readFileSync(join(compiled, name), 'utf8');
      for (const m of text.matchAll(specifiers)) {
        const specifier = (m[1] ?? m[2]) as string;
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const parts = specifier.split('/');
        const packageName = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
        if (!allowed.has(packageName)) outside.push(`${name}: ${specifier}`);
      }
    }
    // Worker threads boot through tsx only when they run from the TypeScript sources (a checkout): the
    // compiled file starts the compiled worker (src/db/store/module-worker.ts).
    const fromSourcesOnly = ['db/store/module-worker.js: tsx/esm/api'];
    expect(outside.filter((o) => !fromSourcesOnly.includes(o))).toEqual([]);
    expect(outside).toEqual(fromSourcesOnly);
  });

  const npxEnv = () => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SANDBOX_SPEED: 'instant',
  });

  it(
    '`npx social-intel-mcp stdio` with no variables: the v2 client lists every tool, `usage` answers from the sandbox',
    async () => {
      const transport = new StdioV2({
        command: 'npx',
        args: [pkg.name, 'stdio'],
        env: npxEnv(),
        cwd: app,
        stderr: 'pipe',
      });
      let logs = '';
      (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (d: string) => {
        logs += d;
      });
      const client = new ClientV2(
        { name: 'installed-v2', version: '1' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(names(tools)).toEqual(CATALOG);
        const usage = await client.callTool({ name: 'usage', arguments: {} });
        expect(usage.isError, JSON.stringify(usage.content)).toBeFalsy();
        expect(usage.structuredContent).toHaveProperty('searches_count');
      } finally {
        await client.close();
      }
      expect(logs).toMatch(/sandbox mode/);
    },
    NPX_TEST_MS,
  );

  it(
    '`npx social-intel-mcp stdio`: the v1 client (initialize first) lists every tool and gets `usage`',
    async () => {
      const client = new ClientV1({ name: 'installed-v1', version: '1' });
      await client.connect(
        new StdioV1({ command: 'npx', args: [pkg.name, 'stdio'], env: npxEnv(), cwd: app, stderr: 'ignore' }),
      );
      try {
        const { tools } = await client.listTools();
        expect(names(tools)).toEqual(CATALOG);
        const usage = await client.callTool({ name: 'usage', arguments: {} });
        expect(usage.isError).toBeFalsy();
        expect(usage.structuredContent).toHaveProperty('searches_count');
      } finally {
        await client.close();
      }
    },
    NPX_TEST_MS,
  );

  /** `npx social-intel-mcp <args>` in the install folder, run to its end with nothing on standard input. */
  function npx(args: string[], env: Record<string, string>) {
    // A process group of its own, signalled whole as a terminal's Ctrl-C is: npx does not pass a
    // SIGTERM sent to it alone on to the server it started.
    const child = spawn('npx', [pkg.name, ...args], {
      cwd: app,
      env: { ...npxEnv(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.once('close', (code) => resolve({ code, stdout, stderr })),
    );
    return { child, done, stdout: () => stdout, stderr: () => stderr };
  }

  it(
    'a token the sandbox does not know: the same one line on standard error, exit 1, nothing on standard output',
    async () => {
      const r = await npx(['stdio'], { UPSTREAM_TOKEN: 'sbx_not_a_real_token', UPSTREAM_USER_ID: 'someone' })
        .done;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^social-intel-mcp: stdio: the built-in sandbox \(no UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL set\) rejected UPSTREAM_TOKEN \(HTTP 401\): .+\n$/,
      );
    },
    NPX_TEST_MS,
  );

  it(
    'the real API without credentials: one line naming both variables, exit 1',
    async () => {
      const urls = { UPSTREAM_SEARCH_URL: 'http://127.0.0.1:9', UPSTREAM_AGENT_URL: 'http://127.0.0.1:9' };
      const r = await npx(['stdio'], urls).done;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'social-intel-mcp: stdio: invalid configuration: UPSTREAM_TOKEN: missing; set it to your API token; UPSTREAM_USER_ID: missing; set it to your user id\n',
      );
    },
    NPX_TEST_MS,
  );

  it(
    '`npx social-intel-mcp serve` starts the hosted server (SQLite, argon2, the views) and stops on SIGTERM',
    async () => {
      const data = join(work.path, 'serve-data');
      const server = npx(['serve'], {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_PATH: join(data, 'server.db'),
      });
      const deadline = Date.now() + 60_000;
      while (
        !server.stdout().includes('"msg":"listening"') &&
        Date.now() < deadline &&
        server.child.exitCode === null
      )
        await new Promise((r) => setTimeout(r, 100));
      const line = server
        .stdout()
        .split('\n')
        .find((l) => l.includes('"msg":"listening"'));
      expect(line, server.stdout()).toBeDefined();
      const { port } = JSON.parse(line as string) as { port: number };
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const home = await fetch(`http://127.0.0.1:${port}/`);
      expect(await home.text()).toContain('Sandbox mode');
      process.kill(-(server.child.pid as number), 'SIGTERM');
      // Stopped cleanly: the server's own last line (npx's exit status is npm's, not the server's).
      const r = await server.done;
      expect(r.stdout).toMatch(/"msg":"stopped"/);
      expect(existsSync(join(data, 'server.db'))).toBe(true);
    },
    NPX_TEST_MS,
  );
});

describe('the MCP Bundle made from that install', () => {
  it('packs with `mcpb pack`; unpacked and started as a host starts it (no settings), it serves the catalog', async () => {
    const stage = join(work.path, 'bundle');
    const bundle = join(work.path, `${pkg.name}.mcpb`);
    stageBundle(app, stage);
    const packed = packBundle(join(ROOT, 'node_modules', '.bin', 'mcpb'), stage, bundle);
    expect(packed).toContain(`${pkg.name}@${pkg.version}`);
    const unpacked = join(work.path, 'unpacked');
    runStep(join(ROOT, 'node_modules', '.bin', 'mcpb'), ['unpack', bundle, unpacked], work.path);
    // Built here, the bundle carries no native module: its entry point loads none.
    expect(existsSync(join(unpacked, 'node_modules', 'better-sqlite3'))).toBe(false);
    expect(existsSync(join(unpacked, 'node_modules', '@node-rs'))).toBe(false);

    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
    expect(names(manifest.tools)).toEqual(CATALOG);
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: unpacked,
      systemDirs: { HOME: work.path, DESKTOP: work.path, DOCUMENTS: work.path, DOWNLOADS: work.path },
      userConfig: {},
      pathSeparator: '/',
    });
    expect(config?.command).toBe('node');
    const client = new ClientV2(
      { name: 'bundle-host', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StdioV2({
        command: process.execPath,
        args: config?.args ?? [],
        env: { ...config?.env, PATH: process.env.PATH ?? '', SANDBOX_SPEED: 'instant' },
        cwd: work.path,
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(names(tools)).toEqual(names(manifest.tools));
      const usage = await client.callTool({ name: 'usage', arguments: {} });
      expect(usage.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 300_000);
});
