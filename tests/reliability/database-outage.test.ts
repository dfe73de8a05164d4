/**
 * The health routes with PostgreSQL out of reach, as fly.toml's service check sees them (docs/deploying.md,
 * "Fly.io"): /readyz answers 503 within its own deadline, so the balancer stops sending the instance
 * traffic; /healthz keeps answering 200, so nothing that watches it restarts the process for a database
 * blip; once the database is back, /readyz is 200 again without a restart. The database is reached
 * through a relay the test takes down. PostgreSQL by nature (a SQLite file cannot become unreachable).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY_TIMEOUT_MS } from '../../src/app.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
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
