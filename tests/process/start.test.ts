import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

// `npm start` builds, then runs dist/src/main.js: build once here and run the built server as a process.
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const dir = tempDir('sim-process-');
const running: Spawned[] = [];

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
  expect(existsSync(MAIN)).toBe(true);
}, 120_000);
afterAll(() => {
  for (const p of running) p.kill('SIGKILL');
  dir.remove();
});

function start(env: Record<string, string>): Spawned {
  const p = spawnProcess(process.execPath, [MAIN], {
    DATABASE_PATH: join(dir.path, 'server.db'),
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_SPEED: 'instant',
    ...env,
  });
  running.push(p);
  return p;
}

async function listeningPort(p: Spawned): Promise<number> {
  const line = await p.waitForLine(/"msg":"listening"/);
  return (JSON.parse(line) as { port: number }).port;
}

describe('the server process', () => {
  it('starts with no configuration, serves the home page and /healthz, and says it is in sandbox mode', async () => {
    const p = start({});
    const port = await listeningPort(p);
    expect(p.stdout()).toMatch(/"msg":"sandbox mode/);
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Sandbox mode');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    p.kill('SIGTERM');
    expect((await p.exit()).code).toBe(0);
    expect(p.stdout()).toMatch(/"msg":"stopped"/);
    // The data folder holds the database and the generated development key, private to the user.
    expect(existsSync(join(dir.path, 'server.db'))).toBe(true);
    expect(existsSync(join(dir.path, 'secret.key'))).toBe(true);
  });

  it('PORT=abc exits non-zero with one line naming PORT', async () => {
    const p = start({ PORT: 'abc' });
    const { code } = await p.exit();
    expect(code).not.toBe(0);
    const problems = p
      .stderr()
      .split('\n')
      .filter((l) => l.trim().startsWith('PORT'));
    expect(problems).toEqual(['  PORT: must be a whole number from 0 to 65535 (got "abc")']);
  });

  it('in production refuses to start without SECRET_KEY, without echoing anything secret', async () => {
    const p = start({ NODE_ENV: 'production', PUBLIC_URL: 'https://mcp.example.com' });
    expect((await p.exit()).code).toBe(1);
    expect(p.stderr()).toContain('SECRET_KEY: required when NODE_ENV=production');
  });

  it('stops on SIGINT too, closing the database cleanly', async () => {
    const p = start({ DATABASE_PATH: join(dir.path, 'sigint.db') });
    await listeningPort(p);
    p.kill('SIGINT');
    expect((await p.exit()).code).toBe(0);
    // A clean close checkpoints the WAL and removes it.
    expect(existsSync(join(dir.path, 'sigint.db-wal'))).toBe(false);
  });
});

describe('SIGTERM during a request', () => {
  it('lets the request in flight finish before the process exits', async () => {
    const p = start({ DATABASE_PATH: join(dir.path, 'inflight.db') });
    const port = await listeningPort(p);
    // A registration whose body is still arriving when SIGTERM lands: the server is mid-request.
    const body = JSON.stringify({
      client_name: 'slow',
      redirect_uris: ['http://localhost:1/cb'],
      token_endpoint_auth_method: 'none',
    });
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let response = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      response += d;
    });
    socket.write(
      `POST /register HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(p.child.exitCode).toBeNull(); // still serving the request
    socket.end(body.slice(10));
    await once(socket, 'close');
    expect(response).toMatch(/^HTTP\/1\.1 201/);
    expect(response).toContain('"client_id"');
    expect((await p.exit()).code).toBe(0);
    // New connections are refused once it stopped listening.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
