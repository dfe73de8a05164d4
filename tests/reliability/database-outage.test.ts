/**
 * PostgreSQL out of reach and restarted. First the health routes, as fly.toml's service check sees them (docs/deploying.md,
 * "Fly.io"): /readyz answers 503 within its own deadline, so the balancer stops sending the instance
 * traffic; /healthz keeps answering 200, so nothing that watches it restarts the process for a database
 * blip; once the database is back, /readyz is 200 again without a restart. The database is reached
 * through a relay the test takes down. Then PostgreSQL itself restarted (a cluster of the test's own,
 * stopped as an operator stops it) under load: every request that needs it meanwhile answers 503 with
 * Retry-After in the form its sender reads, and the same process serves normally once it is back.
 * PostgreSQL by nature (a SQLite file cannot become unreachable).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/users.js';
import { DATABASE_RETRY_AFTER_SECONDS, READY_TIMEOUT_MS } from '../../src/app.js';
import { FormClient } from '../helpers/forms.js';
import { issueTestToken } from '../helpers/grants.js';
import { freshAddress, registerClient } from '../helpers/oauth-http.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
import {
  createDatabase,
  databaseUrl,
  type PostgresCluster,
  startPostgresCluster,
} from '../helpers/postgres-cluster.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TcpRelay } from '../helpers/tcp-relay.js';

let database: TestDatabase;
let relay: TcpRelay;
let server: TestServer;

beforeAll(async () => {
  database = await freshPostgresDatabase({ migrated: true });
  const url = new URL(database.url);
  relay = await new TcpRelay(url.hostname, Number(url.port)).start();
  url.port = String(relay.port);
  server = await startTestServer({ databaseUrl: url.toString() });
});

afterAll(async () => {
  relay?.restore();
  await server?.close();
  await relay?.close();
  await database?.drop();
});

async function health() {
  const live = await fetch(`${server.url}/healthz`);
  const ready = await fetch(`${server.url}/readyz`);
  return {
    healthz: live.status,
    readyz: ready.status,
    ready: (await ready.json()) as { status?: string; error?: string; message?: string },
  };
}

describe('/healthz and /readyz when the database is out of reach', () => {
  it('both answer 200 while the database answers', async () => {
    expect(await health()).toMatchObject({ healthz: 200, readyz: 200, ready: { status: 'ready' } });
  });

  it('the database refuses connections: /readyz 503 not_ready, /healthz still 200', async () => {
    relay.refuse();
    const h = await health();
    expect(h).toMatchObject({ healthz: 200, readyz: 503, ready: { error: 'not_ready' } });
    expect(h.ready.message).toMatch(/database/i);
  });

  it('the database does not answer at all: /readyz 503 once its deadline passes, /healthz still 200', async () => {
    relay.blackhole();
    const h = await health();
    expect(h).toMatchObject({ healthz: 200, readyz: 503, ready: { error: 'not_ready' } });
    expect(h.ready.message).toContain(`${READY_TIMEOUT_MS / 1000} s`);
  });

  it('the database is back: /readyz 200 again, in the same process', async () => {
    relay.restore();
    // As the balancer does, ask again: the pool's connections broken by the outage are replaced on use.
    let h = await health();
    for (let attempt = 1; h.readyz !== 200 && attempt < 20; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      h = await health();
    }
    expect(h).toMatchObject({ healthz: 200, readyz: 200, ready: { status: 'ready' } });
  });
});

describe('PostgreSQL restarted under load', () => {
  let cluster: PostgresCluster;
  let served: TestServer;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    await createDatabase(cluster.adminUrl, 'restarted');
    served = await startTestServer({ databaseUrl: databaseUrl(cluster.adminUrl, 'restarted') });
  });

  afterAll(async () => {
    await served?.close();
    cluster?.stop();
  });

  type Kind = 'mcp' | 'token' | 'page';
  interface Answer {
    kind: Kind;
    status: number;
    retryAfter: string | null;
    type: string;
    body: string;
  }

  it('answers 503 with Retry-After while it is down, in JSON-RPC on /mcp, JSON at /token, a page for a browser; then recovers in the same process', async () => {
    // A tool call (bearer, credential and audit rows), a refresh (a rotation: reads and writes) and a
    // signed-in page (the browser session), each as its own client sends it.
    const { accessToken } = await issueTestToken(served, { upstreamToken: null });
    const { client_id: clientId } = await registerClient(served, {}, freshAddress());
    let refreshToken = (await issueTestToken(served, { upstreamToken: null, clientId })).refreshToken;
    const email = `restart-${process.pid}@example.com`;
    expect((await createUser(served.db, { email, password: 'correct horse battery staple' })).ok).toBe(true);
    const browser = new FormClient(served.url);
    expect((await browser.signIn(email, 'correct horse battery staple')).status).toBe(303);

    const send: Record<Kind, () => Promise<Response>> = {
      mcp: () =>
        fetch(`${served.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${accessToken}`,
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'usage', arguments: {} },
          }),
        }),
      token: () =>
        fetch(`${served.url}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: clientId,
          }),
        }),
      page: () => browser.get('/account', { accept: 'text/html' }),
    };
    const ask = async (kind: Kind): Promise<Answer> => {
      const res = await send[kind]();
      const body = await res.text();
      if (kind === 'token' && res.status === 200)
        refreshToken = (JSON.parse(body) as { refresh_token: string }).refresh_token;
      return {
        kind,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        type: res.headers.get('content-type') ?? '',
        body,
      };
    };
    /** What each kind answers when the database is there: the JSON-RPC result, a new pair, the page. */
    const normal = (a: Answer) =>
      a.status === 200 &&
      (a.kind === 'mcp'
        ? /"result":/.test(a.body)
        : a.kind === 'token'
          ? a.body.includes('"access_token"')
          : a.type.startsWith('text/html') && a.body.includes(email));
    /** The 503 each kind's sender reads. */
    const unavailable = (a: Answer) =>
      a.status === 503 &&
      a.retryAfter === String(DATABASE_RETRY_AFTER_SECONDS) &&
      (a.kind === 'mcp'
        ? (
            JSON.parse(a.body) as { jsonrpc: string; error: { code: number; message: string } }
          ).error.message.includes(`Retry in ${DATABASE_RETRY_AFTER_SECONDS} s`)
        : a.kind === 'token'
          ? (JSON.parse(a.body) as { error: string }).error === 'temporarily_unavailable'
          : a.type.startsWith('text/html') && a.body.includes('Back in a moment'));

    for (const kind of ['mcp', 'token', 'page'] as const) expect(normal(await ask(kind)), kind).toBe(true);

    // Load: three clients, one per kind, one request after another until told to stop.
    const answers: Answer[] = [];
    let loading = true;
    const load = (['mcp', 'token', 'page'] as const).map(async (kind) => {
      while (loading) answers.push(await ask(kind));
    });
    const until = async (n: number) => {
      while (answers.length < n) await new Promise((r) => setTimeout(r, 20));
    };
    await until(15);
    await cluster.shutDown();
    // Down: each kind, asked now, gets its 503.
    const down = await Promise.all((['mcp', 'token', 'page'] as const).map(ask));
    for (const a of down)
      expect(unavailable(a), `${a.kind} while down: ${a.status} ${a.body.slice(0, 200)}`).toBe(true);
    await until(answers.length + 15);
    await cluster.startAgain();
    // Back: each kind answers normally again, without a restart of the server (a pool connection the
    // restart broke is replaced on its next use; give that a few tries).
    for (const kind of ['mcp', 'token', 'page'] as const) {
      let a = await ask(kind);
      for (let attempt = 1; !normal(a) && attempt < 40; attempt++) {
        await new Promise((r) => setTimeout(r, 250));
        a = await ask(kind);
      }
      expect(normal(a), `${kind} after the restart: ${a.status} ${a.body.slice(0, 200)}`).toBe(true);
    }
    loading = false;
    await Promise.all(load);

    // Under load, every answer was the normal one or the 503 its sender reads: never a 500.
    const odd = answers.filter((a) => !normal(a) && !unavailable(a));
    expect(odd.map((a) => `${a.kind} ${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
    expect(answers.filter(unavailable).length).toBeGreaterThan(0);
  });
});
