import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSandboxApp, startSandboxServer } from '../../src/sandbox/server.js';
import { startSandbox } from '../helpers/sandbox-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run sandbox (src/sandbox/main.ts)', () => {
  it('prints SEARCH_URL, AGENT_URL and TOKEN on their own lines, serves both hosts, exits 0 on SIGTERM', async () => {
    const sbx = await startSandbox({ SANDBOX_SPEED: '' });
    expect(sbx.searchUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sbx.agentUrl).toBe(`${sbx.searchUrl}/agent`);
    expect((await sbx.search('GET', '/api/iq/credits')).body.available_credits).toBe(100);
    expect((await sbx.agent('GET', '/api/v1/runs')).status).toBe(200);
    // demo is the default speed.
    expect((await sbx.control('GET', '/speed')).body.speed).toBe('demo');
    expect(await sbx.stop()).toBe(0);
  });

  it('refuses a bad SANDBOX_SPEED with exit code 1 and a message', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_SPEED: 'ludicrous' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const [code] = await once(proc, 'exit');
    expect(code).toBe(1);
    expect(err).toContain('SANDBOX_SPEED');
  });
});

describe('in-process use', () => {
  it('startSandboxServer listens, hands out a ready producer credential, and closes', async () => {
    const sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
    const headers = { 'X-SERVICE-TOKEN': sandbox.token, 'X-SERVICE-USER-ID': 'u' };
    const credits = await fetch(`${sandbox.searchUrl}/api/iq/credits`, { headers });
    expect(await credits.json()).toMatchObject({ available_credits: 100 });
    const expert = await fetch(`${sandbox.searchUrl}/api/search`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'producer works' }),
    });
    expect(expert.status).toBe(201);
    const run = await fetch(`${sandbox.agentUrl}/api/v1/runs`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'in process?' }),
    });
    expect(run.status).toBe(201);
    await sandbox.close();
    await sandbox.close();
    await expect(fetch(`${sandbox.searchUrl}/api/iq/credits`, { headers })).rejects.toThrow();
  });

  it('close() does not wait for hanging requests', async () => {
    const sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
    await fetch(`${sandbox.searchUrl}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hang: true }),
    });
    const hanging = fetch(`${sandbox.searchUrl}/api/iq/credits`, {
      headers: { 'X-SERVICE-TOKEN': sandbox.token, 'X-SERVICE-USER-ID': 'u' },
    }).catch(() => null);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await sandbox.close();
    expect(Date.now() - t0).toBeLessThan(2_000);
    await hanging;
  });

  it('createSandboxApp is a fetch handler with an injectable clock', async () => {
    let now = Date.parse('2026-06-01T12:00:00Z');
    const clock = {
      now: () => now,
      freeze() {},
      resume() {},
      advance(ms: number) {
        now += ms;
      },
      set(ms: number) {
        now = ms;
      },
      isFrozen: () => true,
    };
    const app = createSandboxApp({ speed: 'demo', clock, tick: false });
    try {
      const cred = app.sandbox.store.createCredential({});
      const headers = {
        'X-SERVICE-TOKEN': cred.token,
        'X-SERVICE-USER-ID': 'u',
        'content-type': 'application/json',
      };
      const created = await app.request('/api/iq/keyword_search', {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'injected clock' }),
      });
      expect(created.status).toBe(201);
      const { id, created_at } = (await created.json()) as { id: number; created_at: string };
      expect(created_at).toBe('2026-06-01T12:00:00.000Z');
      const before = (await (await app.request(`/api/iq/keyword_search/${id}`, { headers })).json()) as {
        status: string;
      };
      expect(before.status).toBe('pending');
      now += 10_000;
      const after = (await (await app.request(`/api/iq/keyword_search/${id}`, { headers })).json()) as {
        status: string;
      };
      expect(after.status).toBe('finished');
    } finally {
      app.sandbox.dispose();
    }
  });
});
