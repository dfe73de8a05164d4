/**
 * Crash safety: the gateway process is SIGKILLed again and again while clients refresh tokens, call
 * tools (audit rows) and link upstream credentials. After every kill the database passes
 * `PRAGMA integrity_check`, a restart applies no migration, and every refresh response a client fully
 * received still gives a working access token (and the client's current refresh token still works).
 * SQLite only: the file's integrity after a kill is SQLite's question (PostgreSQL's crash safety is
 * the server's; the two-instance test kills an instance on PostgreSQL).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { loadConfig } from '../../src/config.js';
import { openSqliteFile } from '../../src/db/client.js';
import { type OpenStore, openSqliteStore } from '../../src/db/store/index.js';
import { createAuthorizationCode } from '../../src/oauth/codes.js';
import { REFRESH_GRACE_MS } from '../../src/oauth/refresh.js';
import { SCOPES } from '../../src/oauth/scopes.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { SecretBox } from '../../src/security/secrets.js';
import { RATE_LIMITS } from '../../src/web/rate-limits.js';
import { freePort, type Gateway, spawnGateway } from '../helpers/gateway.js';
import { pkce } from '../helpers/oauth-http.js';
import { TEST_SECRET_KEY, tempDir } from '../helpers/temp.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 6);
const REDIRECT = 'http://localhost:3000/callback';
/**
 * Credential links per cycle: the per-user limit on credential checks is counted in the database, so
 * it holds across restarts (as across instances); the whole run stays within it.
 */
const LINKS_PER_CYCLE = Math.max(1, Math.floor(RATE_LIMITS.credentialChecksPerUser.limit / (CYCLES + 1)));

const dir = tempDir('sim-crash-');
const databasePath = join(dir.path, 'crash.db');
let sandbox: SandboxServer;
let port: number;
let publicUrl: string;
let gateway: Gateway | null = null;
let db: OpenStore;
/** The file itself, for SQLite's own integrity checks after each kill. */
let file: ReturnType<typeof openSqliteFile>;

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  gateway?.proc.kill('SIGKILL');
  await gateway?.proc.exit();
  await db?.close();
  file?.close();
  await sandbox?.close();
  dir.remove();
});

function start(): Promise<Gateway> {
  return spawnGateway({
    databasePath,
    publicUrl,
    port,
    env: { UPSTREAM_SEARCH_URL: sandbox.searchUrl, UPSTREAM_AGENT_URL: sandbox.agentUrl },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `interruptedAt`: when the refresh request a kill cut off was sent (its rotation may have committed). */
type Device = { refreshToken: string; accessToken: string; interruptedAt?: number };

describe('SIGKILL while issuing tokens, writing audit rows and linking credentials', () => {
  it(`survives ${CYCLES} kills`, async () => {
    gateway = await start();
    expect(gateway.migrationsApplied).toBeGreaterThan(0);
    db = openSqliteStore(databasePath);
    file = openSqliteFile(databasePath);

    // A user with a linked credential and a browser session; a registered client and a first grant.
    const created = await createUser(db, {
      email: 'crash@example.com',
      password: 'correct horse battery staple',
    });
    if (!created.ok) throw new Error(created.reason);
    const workspaceId = created.personalWorkspaceId;
    const config = loadConfig({
      PUBLIC_URL: publicUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      DATABASE_PATH: databasePath,
    });
    await saveUpstreamCredential(db, new SecretBox(config.secretKeys), {
      workspaceId,
      linkedBy: created.user.id,
      token: sandbox.token,
      upstreamUserId: 'crash-user',
      verifiedAt: Date.now(),
    });
    const cookie = `__Host-sim_session=${await createSession(db, created.user.id, 'crash-test')}`;
    const reg = await fetch(`${gateway.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Crash client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    // Two devices of the app (two token families), each refreshing in sequence, as a client does: the
    // grace window then covers a rotation the server committed but never acknowledged.
    const authorizeDevice = async () => {
      const { verifier, challenge } = pkce();
      const code = await createAuthorizationCode(db, {
        clientId,
        userId: created.user.id,
        workspaceId,
        redirectUri: REDIRECT,
        codeChallenge: challenge,
        scopes: SCOPES,
        resource: `${publicUrl}/mcp`,
      });
      const res = await fetch(`${gateway?.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: REDIRECT,
          resource: `${publicUrl}/mcp`,
        }),
      });
      const tokens = (await res.json()) as { access_token: string; refresh_token: string };
      return { refreshToken: tokens.refresh_token, accessToken: tokens.access_token };
    };
    const totals = { refreshes: 0, toolCalls: 0, links: 0, interrupted: 0, signedInAgain: 0 };
    const devices: Device[] = [await authorizeDevice(), await authorizeDevice()];
    /**
     * A rotation the server committed but never acknowledged (the kill cut the response) is covered
     * by the grace window only within REFRESH_GRACE_MS of that request; a restart on a loaded machine
     * can take longer, and then the family ends by design (a later use is reuse). That is no
     * acknowledged token lost: the device signs in again. Anything else must have been a 200.
     */
    const signedOutPastGrace = async (device: Device, status: number, error: string | undefined) => {
      const cut = device.interruptedAt;
      if (status !== 400 || error !== 'invalid_grant' || cut === undefined) return false;
      if (Date.now() - cut <= REFRESH_GRACE_MS) return false;
      Object.assign(device, await authorizeDevice(), { interruptedAt: undefined });
      totals.signedInAgain++;
      return true;
    };
    let bearer = devices[0]?.accessToken as string;

    const mcp = (token: string, body: unknown) =>
      fetch(`${publicUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      });

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const received: string[] = [];
      let stop = false;
      const interrupted = () => {
        totals.interrupted++;
      };
      const refreshLoop = async (device: Device) => {
        while (!stop) {
          const sentAt = Date.now();
          try {
            const res = await fetch(`${publicUrl}/token`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({
                grant_type: 'refresh_token',
                refresh_token: device.refreshToken,
                client_id: clientId,
              }),
            });
            const body = (await res.json()) as {
              access_token?: string;
              refresh_token?: string;
              error?: string;
            };
            if (await signedOutPastGrace(device, res.status, body.error)) continue;
            // Fully received: the client now relies on this pair.
            expect(res.status, JSON.stringify(body)).toBe(200);
            device.interruptedAt = undefined;
            device.refreshToken = body.refresh_token as string;
            bearer = body.access_token as string;
            received.push(bearer);
            totals.refreshes++;
          } catch (error) {
            if ((error as Error).name === 'AssertionError') throw error;
            device.interruptedAt = sentAt;
            interrupted();
            return;
          }
        }
      };
      const toolLoop = async () => {
        while (!stop) {
          try {
            const res = await mcp(bearer, {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'usage', arguments: {} },
            });
            const text = await res.text();
            expect(res.status, text).toBe(200);
            totals.toolCalls++;
          } catch (error) {
            if ((error as Error).name === 'AssertionError') throw error;
            interrupted();
            return;
          }
        }
      };
      const linkLoop = async () => {
        try {
          const page = await fetch(`${publicUrl}/account/credentials`, { headers: { cookie } });
          const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
          for (let i = 0; i < LINKS_PER_CYCLE && !stop; i++) {
            const res = await fetch(`${publicUrl}/account/credentials`, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: publicUrl },
              body: new URLSearchParams({
                csrf,
                workspace: workspaceId,
                token: sandbox.token,
                upstream_user_id: `crash-user-${cycle}-${i}`,
              }),
            });
            await res.arrayBuffer();
            expect(res.status).toBe(303);
            totals.links++;
          }
        } catch (error) {
          if ((error as Error).name === 'AssertionError') throw error;
          interrupted();
        }
      };
      const loops = Promise.all([
        refreshLoop(devices[0] as Device),
        refreshLoop(devices[1] as Device),
        toolLoop(),
        toolLoop(),
        linkLoop(),
      ]);
      // Kill at a random moment once this cycle has done some of each kind of work, so a loaded
      // machine (slow requests) cannot leave a cycle without writes to interrupt.
      const done = { refreshes: totals.refreshes, toolCalls: totals.toolCalls };
      let settled = false; // a loop that failed before the kill: stop waiting, `await loops` reports it
      loops
        .catch(() => {})
        .finally(() => {
          settled = true;
        });
      while (!settled && (totals.refreshes - done.refreshes < 2 || totals.toolCalls - done.toolCalls < 2)) {
        await sleep(20);
      }
      await sleep(Math.floor(Math.random() * 500));
      gateway.proc.kill('SIGKILL');
      await gateway.proc.exit();
      stop = true;
      await loops;

      const integrity = file.pragma('integrity_check') as Array<{ integrity_check: string }>;
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);
      expect(file.pragma('foreign_key_check')).toEqual([]);

      gateway = await start();
      expect(gateway.migrationsApplied).toBe(0);
      // Every pair the client fully received works after the restart.
      for (const token of received) {
        const res = await mcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      }
    }

    // The refresh token each device holds (possibly one whose rotation the server committed but never
    // acknowledged: the grace window covers the retry) still refreshes.
    for (const device of devices) {
      const refresh = () =>
        fetch(`${publicUrl}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: device.refreshToken,
            client_id: clientId,
          }),
        });
      let last = await refresh();
      const body = (await last.json()) as { error?: string };
      if (await signedOutPastGrace(device, last.status, body.error)) last = await refresh();
      expect(last.status).toBe(200);
    }
    expect(totals.refreshes).toBeGreaterThan(CYCLES);
    expect(totals.toolCalls).toBeGreaterThan(CYCLES);
    const toolCallRows = file
      .prepare("SELECT count(*) AS n FROM audit_events WHERE kind = 'tool_call'")
      .get();
    expect((toolCallRows as { n: number }).n).toBeGreaterThan(0);
    console.log('crash safety:', { cycles: CYCLES, ...totals });
  });
});
