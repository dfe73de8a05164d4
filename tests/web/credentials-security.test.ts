import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first } from '../../src/db/store/index.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { freshEmail, signedIn, startFormSecurityServer } from '../helpers/form-security.js';
import { SESSION_COOKIE } from '../helpers/forms.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Upstream credentials through the browser: verified upstream, stored encrypted, shown by their last
 * four characters only, kept to their own workspace; and no password, session id or upstream token
 * anywhere in the database.
 */
let sandbox: SandboxServer;
let server: TestServer;
beforeAll(async () => {
  ({ sandbox, server } = await startFormSecurityServer());
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

describe('upstream credentials', () => {
  it('verifies with the upstream, stores encrypted, shows only the last 4, replaces and removes', async () => {
    const email = freshEmail();
    const client = await signedIn(server, email);
    await client.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(client.lastHtml)?.[1] ?? '';
    expect(client.lastHtml).toContain('Use sandbox credentials'); // sandbox mode

    let res = await client.post('/account/credentials', {
      workspace,
      token: 'sim_unknown_token_zzzz',
      upstream_user_id: 'me',
    });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('The API rejected this token (HTTP 401)');
    expect(client.lastHtml).toMatch(/id="token"[^>]*aria-invalid="true"/);
    expect(client.lastHtml).toContain('value="me"');
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();

    res = await client.post('/account/credentials', {
      workspace,
      token: `  ${sandbox.token} `,
      upstream_user_id: 'analyst-7',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/account/credentials?workspace=${workspace}&done=saved`);
    await client.get(res.headers.get('location') ?? '');
    expect(client.lastHtml).toContain('Credentials verified and saved.');
    expect(client.lastHtml).toContain(`••••${sandbox.token.slice(-4)}`);
    expect(client.lastHtml).not.toContain(sandbox.token);
    expect(client.lastHtml).toContain('analyst-7');
    const row = await first(
      server.db.orm
        .select()
        .from(server.db.t.upstreamCredentials)
        .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
    );
    expect(row?.tokenLast4).toBe(sandbox.token.slice(-4));
    expect(row?.tokenCiphertext).not.toContain(sandbox.token);
    const user = await first(
      server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
    );
    const member = await first(
      server.db.orm
        .select()
        .from(server.db.t.workspaceMembers)
        .where(eq(server.db.t.workspaceMembers.userId, user?.id ?? '')),
    );
    expect(member?.upstreamUserId).toBe('analyst-7');

    // Replace with a fresh sandbox token, honouring next.
    const created = (await (
      await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { token: string };
    res = await client.post('/account/credentials', {
      workspace,
      token: created.token,
      upstream_user_id: 'analyst-8',
      next: '/authorize?x=1',
    });
    expect(res.headers.get('location')).toBe('/authorize?x=1');
    expect(
      (
        await first(
          server.db.orm
            .select()
            .from(server.db.t.upstreamCredentials)
            .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
        )
      )?.tokenLast4,
    ).toBe(created.token.slice(-4));

    await client.get(`/account/credentials?workspace=${workspace}`);
    res = await client.post('/account/credentials/remove', { workspace });
    expect(res.headers.get('location')).toBe(`/account/credentials?workspace=${workspace}&done=removed`);
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();
  });

  it("refuses another person's workspace", async () => {
    const owner = await signedIn(server);
    await owner.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? '';
    const intruder = await signedIn(server);
    const page = await intruder.get(`/account/credentials?workspace=${workspace}`);
    expect(page.status).toBe(404);
    await intruder.get('/account/credentials');
    const res = await intruder.post('/account/credentials', {
      workspace,
      token: sandbox.token,
      upstream_user_id: 'x',
    });
    expect(res.status).toBe(404);
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();
  });

  it('leaves no password, session id or upstream token in the database files', async () => {
    const password = 'unique-plaintext-password-4711';
    const email = freshEmail();
    const client = await signedIn(server, email, password);
    const sessionId = client.cookies.get(SESSION_COOKIE) ?? '';
    await client.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(client.lastHtml)?.[1] ?? '';
    const res = await client.post('/account/credentials', {
      workspace,
      token: sandbox.token,
      upstream_user_id: 'bytes-check',
    });
    expect(res.status).toBe(303);
    expect(sessionId).toMatch(/^sim_ss_/);

    const bytes = await storedBytes(server);
    // Sanity: the search can see what is there.
    expect(bytes.includes(Buffer.from(email))).toBe(true);
    const logs = JSON.stringify(server.logs);
    expect(logs).toContain('upstream credential linked');
    for (const secret of [password, sessionId, sessionId.slice(7), sandbox.token]) {
      expect(bytes.includes(Buffer.from(secret)), `found ${secret.slice(0, 6)}… in the database`).toBe(false);
      expect(logs.includes(secret), `found ${secret.slice(0, 6)}… in the logs`).toBe(false);
    }
    // The audit trail has the events, without secrets.
    const user = await first(
      server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
    );
    const kinds = (
      await server.db.orm
        .select({ kind: server.db.t.auditEvents.kind })
        .from(server.db.t.auditEvents)
        .where(eq(server.db.t.auditEvents.userId, user?.id ?? ''))
    ).map((e) => e.kind);
    expect(kinds).toEqual(['account_created', 'credential_linked']);
  });
});

/**
 * What the database holds, as bytes to search: on SQLite the files themselves (database and WAL, so
 * nothing hides in a page the tables no longer point to), on PostgreSQL every row of every table.
 */
async function storedBytes(server: TestServer): Promise<Buffer> {
  if (server.engine === 'sqlite') {
    const dir = server.dataDir;
    const files = readdirSync(dir).filter((f) => f.startsWith('test.db'));
    expect(files).toContain('test.db-wal');
    return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  }
  const rows = await Promise.all(
    Object.values(server.db.t).map((table) => server.db.orm.select().from(table)),
  );
  return Buffer.from(JSON.stringify(rows));
}
