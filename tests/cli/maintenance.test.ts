import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { keyId } from '../../src/config.js';
import { first } from '../../src/db/store/index.js';
import { SecretBox } from '../../src/security/secrets.js';
import { hashToken } from '../../src/security/tokens.js';
import { lines, runCli } from '../helpers/cli.js';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli-workspace.js';

let ws: CliWorkspace;
beforeAll(async () => {
  ws = await cliWorkspace();
});
afterAll(() => ws.close());

const hex = (byte: number) => Buffer.alloc(32, byte).toString('hex');
const box = (...bytes: number[]) =>
  new SecretBox(bytes.map((b) => ({ id: keyId(Buffer.alloc(32, b)), key: Buffer.alloc(32, b) })));

describe('purge', () => {
  it('deletes expired rows and prints what it deleted', async () => {
    const u = await createUser(ws.db, { email: 'ada@example.com', password: 'violet tractor umbrella' });
    if (!u.ok) throw new Error('setup');
    const old = Date.now() - 3 * 24 * 3600 * 1000;
    // The live one first: creating a session clears the user's expired ones.
    const live = await createSession(ws.db, u.user.id, null);
    await createSession(ws.db, u.user.id, null, old - 31 * 24 * 3600 * 1000); // long expired
    for (const n of [1, 2]) {
      await ws.db.orm.insert(ws.db.t.oauthCodes).values({
        codeHash: `old-${n}`,
        clientId: 'c',
        userId: u.user.id,
        workspaceId: u.personalWorkspaceId,
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'x',
        scopes: '',
        resource: 'r',
        createdAt: old,
        expiresAt: old + 60_000,
      });
    }
    const r = await runCli(['purge'], ws.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // One "what: count" line per kind of row purgeExpired reports.
    expect(r.stdout).toMatch(/^(\w+: \d+\n)+$/);
    expect(lines(r.stdout)).toEqual(
      expect.arrayContaining(['codes: 2', 'tokens: 0', 'grants: 0', 'sessions: 1', 'clients: 0']),
    );
    expect(await ws.db.orm.select().from(ws.db.t.oauthCodes)).toEqual([]);
    expect((await ws.db.orm.select().from(ws.db.t.sessions)).map((s) => s.idHash)).toEqual([hashToken(live)]);
  });
});

describe('rotate-key', () => {
  it('re-seals credentials under SECRET_KEY using SECRET_KEY_PREVIOUS, then finds them current', async () => {
    const u = await createUser(ws.db, { email: 'rot@example.com', password: 'violet tractor umbrella' });
    if (!u.ok) throw new Error('setup');
    const workspaceId = u.personalWorkspaceId;
    await saveUpstreamCredential(ws.db, box(1), {
      workspaceId,
      linkedBy: u.user.id,
      token: 'upstream-secret-token-1234',
      upstreamUserId: 'up-1',
      verifiedAt: Date.now(),
    });
    const env = { ...ws.env, SECRET_KEY: hex(2), SECRET_KEY_PREVIOUS: hex(1) };
    const r = await runCli(['rotate-key'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('re-encrypted: 1\nalready current: 0\nfailed: 0\n');
    const row = await first(
      ws.db.orm
        .select()
        .from(ws.db.t.upstreamCredentials)
        .where(eq(ws.db.t.upstreamCredentials.workspaceId, workspaceId)),
    );
    expect(row?.keyId).toBe(keyId(Buffer.alloc(32, 2)));
    expect(SecretBox.keyIdOf(row?.tokenCiphertext ?? '')).toBe(keyId(Buffer.alloc(32, 2)));
    // Only the new key is needed now.
    expect(box(2).open(row?.tokenCiphertext ?? '', workspaceId)).toBe('upstream-secret-token-1234');

    const again = await runCli(['rotate-key'], { ...ws.env, SECRET_KEY: hex(2) });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('re-encrypted: 0\nalready current: 1\nfailed: 0\n');
  });

  it('with the wrong previous key, leaves the credential alone and exits 1 in one line', async () => {
    const before = await ws.db.orm.select().from(ws.db.t.upstreamCredentials);
    const r = await runCli(['rotate-key'], {
      ...ws.env,
      SECRET_KEY: hex(3),
      SECRET_KEY_PREVIOUS: hex(4),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('re-encrypted: 0\nalready current: 0\nfailed: 1\n');
    expect(r.stderr).toBe(
      'social-intel-mcp: 1 credential could not be opened with SECRET_KEY or SECRET_KEY_PREVIOUS (wrong key?); they were left as they are\n',
    );
    expect(await ws.db.orm.select().from(ws.db.t.upstreamCredentials)).toEqual(before);
  });

  it('needs SECRET_KEY in the environment, and never echoes a key it refuses', async () => {
    const missing = await runCli(['rotate-key'], { ...ws.env, SECRET_KEY: undefined });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'social-intel-mcp: rotate-key needs SECRET_KEY set to the new key and SECRET_KEY_PREVIOUS to the old one\n',
    );
    const bad = await runCli(['rotate-key'], {
      ...ws.env,
      SECRET_KEY: 'abc123-not-a-key',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^social-intel-mcp: invalid configuration: SECRET_KEY: must be 32 random bytes/,
    );
    expect(bad.stderr).not.toContain('abc123-not-a-key');
  });
});
