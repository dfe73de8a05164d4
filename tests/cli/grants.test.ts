import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/users.js';
import { getPersonalWorkspaceId } from '../../src/accounts/workspaces.js';
import { createAuthorizationCode, findCode } from '../../src/oauth/codes.js';
import { issueGrantForCode } from '../../src/oauth/grants.js';
import { lines, runCli } from '../helpers/cli.js';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli-workspace.js';

let ws: CliWorkspace;
beforeAll(async () => {
  ws = await cliWorkspace();
});
afterAll(() => ws.close());

const CLIENT_A = 'sim_client_aaaaaaaaaaaa';
const CLIENT_B = 'sim_client_bbbbbbbbbbbb';
let ada = '';
let bob = '';

/** A grant as the token endpoint makes it: code, then exchange. */
async function grant(userId: string, clientId: string): Promise<string> {
  const workspaceId = (await getPersonalWorkspaceId(ws.db, userId)) ?? '';
  const code = await createAuthorizationCode(ws.db, {
    clientId,
    userId,
    workspaceId,
    redirectUri: 'http://127.0.0.1:5555/callback',
    codeChallenge: 'x'.repeat(43),
    scopes: ['searches:read'],
    resource: 'http://localhost:8787/mcp',
  });
  const row = await findCode(ws.db, code);
  if (!row) throw new Error('setup');
  await issueGrantForCode(ws.db, row, 3_600_000);
  const latest = (await ws.db.orm.select().from(ws.db.t.oauthGrants)).at(-1);
  return latest?.id ?? '';
}

beforeAll(async () => {
  const a = await createUser(ws.db, { email: 'ada@example.com', password: 'violet tractor umbrella' });
  const b = await createUser(ws.db, { email: 'bob@example.com', password: 'violet tractor umbrella' });
  if (!a.ok || !b.ok) throw new Error('setup');
  ada = a.user.id;
  bob = b.user.id;
  await grant(ada, CLIENT_A);
  await grant(ada, CLIENT_B);
  await grant(bob, CLIENT_A);
});

interface Listed {
  id: string;
  status: string;
  user: string;
  clientId: string;
  scopes: string[];
  revokedReason: string | null;
}

async function list(...args: string[]): Promise<Listed[]> {
  const r = await runCli(['grants', 'list', '--json', ...args], ws.env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

describe('grants', () => {
  it('lists the grants of a user (by email) and of a client (by client_id)', async () => {
    const mine = await list('--user', 'Ada@example.com');
    expect(mine.map((g) => g.clientId).sort()).toEqual([CLIENT_A, CLIENT_B]);
    expect(mine.every((g) => g.status === 'active' && g.user === 'ada@example.com')).toBe(true);
    expect(mine[0]?.scopes).toEqual(['searches:read']);
    const theirs = await list('--client', CLIENT_A);
    expect(theirs.map((g) => g.user).sort()).toEqual(['ada@example.com', 'bob@example.com']);
  });

  it('prints a readable listing by default', async () => {
    const r = await runCli(['grants', 'list', '--user', 'bob@example.com'], ws.env);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toMatch(/^[0-9a-f-]{36} {2}active$/);
    expect(r.stdout).toContain(`client (${CLIENT_A})`);
    expect(r.stdout).toContain('scopes searches:read');
  });

  it('revokes every grant of a client: tokens revoked, audited, gone from the default listing', async () => {
    const r = await runCli(['grants', 'revoke', '--client', CLIENT_A], ws.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('revoked 2 grants; their access and refresh tokens stop working now\n');
    const revoked = await ws.db.orm
      .select()
      .from(ws.db.t.oauthGrants)
      .where(eq(ws.db.t.oauthGrants.clientId, CLIENT_A));
    expect(revoked.map((g) => g.revokedReason)).toEqual(['admin_cli', 'admin_cli']);
    for (const g of revoked) {
      const tokens = await ws.db.orm
        .select()
        .from(ws.db.t.oauthTokens)
        .where(eq(ws.db.t.oauthTokens.grantId, g.id));
      expect(tokens.length).toBe(2);
      expect(tokens.every((t) => t.revokedAt !== null)).toBe(true);
    }
    const audited = await ws.db.orm
      .select()
      .from(ws.db.t.auditEvents)
      .where(eq(ws.db.t.auditEvents.kind, 'grant_revoked'));
    expect(audited.map((e) => [e.clientId, JSON.parse(e.detail ?? '{}').reason])).toEqual([
      [CLIENT_A, 'admin_cli'],
      [CLIENT_A, 'admin_cli'],
    ]);
    expect((await list('--user', 'ada@example.com')).map((g) => g.clientId)).toEqual([CLIENT_B]);
    const all = await list('--user', 'ada@example.com', '--all');
    expect(all.find((g) => g.clientId === CLIENT_A)).toMatchObject({
      status: 'revoked',
      revokedReason: 'admin_cli',
    });
    // Revoking again finds nothing left to revoke.
    const again = await runCli(['grants', 'revoke', '--client', CLIENT_A], ws.env);
    expect(again.stdout).toBe('revoked 0 grants; their access and refresh tokens stop working now\n');
  });

  it('revokes every grant of a user, leaving other users alone', async () => {
    const otherClientGrant = await grant(bob, CLIENT_B);
    const r = await runCli(['grants', 'revoke', '--user', 'ada@example.com'], ws.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^revoked 1 grant;/);
    expect(await list('--user', 'ada@example.com')).toEqual([]);
    expect((await list('--user', 'bob@example.com')).map((g) => g.id)).toEqual([otherClientGrant]);
  });

  it('marks a grant whose refresh tokens all expired as expired', async () => {
    const id = await grant(bob, 'sim_client_cccccccccccc');
    await ws.db.orm
      .update(ws.db.t.oauthTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(ws.db.t.oauthTokens.grantId, id));
    const listed = await list('--client', 'sim_client_cccccccccccc');
    expect(listed.map((g) => g.status)).toEqual(['expired']);
  });

  it('fails in one line for an unknown user, client or grant, or with no filter', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['grants', 'list', '--user', 'nobody@example.com'],
        'social-intel-mcp: no user with email nobody@example.com\n',
      ],
      [
        ['grants', 'revoke', '--client', 'sim_client_nope'],
        'social-intel-mcp: no client with client_id sim_client_nope\n',
      ],
      [['grants', 'revoke', '--grant', 'not-a-grant'], 'social-intel-mcp: no grant with id not-a-grant\n'],
      [
        ['grants', 'list'],
        'social-intel-mcp: say whose grants: --user <email>, --client <client_id> or --grant <id>\n',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, ws.env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(message);
    }
  });
});
