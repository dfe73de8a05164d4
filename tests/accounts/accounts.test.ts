import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultUpstreamUserId,
  getCredentialSummary,
  loadUpstreamCredential,
  reencryptCredentials,
  removeUpstreamCredential,
  saveUpstreamCredential,
} from '../../src/accounts/credentials.js';
import { findUsableInvite } from '../../src/accounts/invites.js';
import {
  createSession,
  endAllSessions,
  resolveSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
} from '../../src/accounts/sessions.js';
import { authenticate, createUser, normaliseEmail } from '../../src/accounts/users.js';
import { getPersonalWorkspaceId, listWorkspacesForUser } from '../../src/accounts/workspaces.js';
import { keyId } from '../../src/config.js';
import { first, type OpenStore } from '../../src/db/store/index.js';
import { SecretBox } from '../../src/security/secrets.js';
import { hashToken, newToken } from '../../src/security/tokens.js';
import { testEngine } from '../helpers/engine.js';
import { migratedTestStore, type TestStore } from '../helpers/stores.js';

let ctx: TestStore;
let db: OpenStore;
const oldKey = { id: keyId(Buffer.alloc(32, 1)), key: Buffer.alloc(32, 1) };
const newKey = { id: keyId(Buffer.alloc(32, 2)), key: Buffer.alloc(32, 2) };

beforeAll(async () => {
  ctx = await migratedTestStore(testEngine());
  db = ctx.store;
});
afterAll(async () => {
  await ctx.cleanup();
});

describe('users', () => {
  it('normalises email', async () => {
    expect(normaliseEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('creates the user, a personal workspace and the owner membership together', async () => {
    const result = await createUser(db, { email: 'ada@example.com', password: 'violet tractor umbrella' });
    if (!result.ok) throw new Error(result.reason);
    expect(await listWorkspacesForUser(db, result.user.id)).toEqual([
      {
        id: result.personalWorkspaceId,
        name: 'Personal',
        kind: 'personal',
        role: 'owner',
        hasCredential: false,
      },
    ]);
    expect(await getPersonalWorkspaceId(db, result.user.id)).toBe(result.personalWorkspaceId);
    const stored = await first(db.orm.select().from(db.t.users).where(eq(db.t.users.id, result.user.id)));
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('refuses a duplicate email and leaves nothing half-made', async () => {
    const before = (await db.orm.select().from(db.t.workspaces)).length;
    const result = await createUser(db, { email: 'ada@example.com', password: 'another long passphrase' });
    expect(result).toEqual({ ok: false, reason: 'email_taken' });
    expect((await db.orm.select().from(db.t.workspaces)).length).toBe(before);
    expect((await db.orm.select().from(db.t.workspaceMembers)).length).toBe(before);
  });

  it('authenticates the right password only, whatever the email case', async () => {
    expect(await authenticate(db, ' ADA@example.com', 'violet tractor umbrella')).toMatchObject({
      email: 'ada@example.com',
    });
    expect(await authenticate(db, 'ada@example.com', 'violet tractor umbrellA')).toBeNull();
    expect(await authenticate(db, 'nobody@example.com', 'violet tractor umbrella')).toBeNull();
  });

  it('takes about as long for an unknown email as for a wrong password (dummy hash)', async () => {
    // Interleaved, and the fastest of each kept: a busy machine slows some attempts, never speeds one
    // up, so the minimum is the work each path does.
    const fastest = { known: Number.POSITIVE_INFINITY, unknown: Number.POSITIVE_INFINITY };
    for (let i = 0; i < 6; i++) {
      for (const [kind, email] of [
        ['known', 'ada@example.com'],
        ['unknown', 'nobody-here@example.com'],
      ] as const) {
        const started = performance.now();
        expect(await authenticate(db, email, 'definitely wrong password')).toBeNull();
        fastest[kind] = Math.min(fastest[kind], performance.now() - started);
      }
    }
    const { known, unknown } = fastest;
    // Both pay for one argon2id verification (tens of ms); without the dummy hash "unknown" is ~0.1 ms.
    expect(unknown).toBeGreaterThan(known / 3);
    expect(unknown).toBeLessThan(known * 3);
  });

  it('spends an invite inside the sign-up transaction and joins its workspace', async () => {
    const owner = await createUser(db, { email: 'owner@example.com', password: 'violet tractor umbrella' });
    if (!owner.ok) throw new Error(owner.reason);
    const token = newToken('invite');
    await db.orm.insert(db.t.invites).values({
      id: 'inv1',
      workspaceId: owner.personalWorkspaceId,
      tokenHash: hashToken(token),
      role: 'member',
      maxUses: 1,
      expiresAt: Date.now() + 60_000,
      createdAt: Date.now(),
    });
    const invite = await findUsableInvite(db, token);
    expect(invite).toMatchObject({ id: 'inv1', role: 'member' });
    const joined = await createUser(db, {
      email: 'guest@example.com',
      password: 'violet tractor umbrella',
      invite,
    });
    if (!joined.ok) throw new Error(joined.reason);
    expect((await listWorkspacesForUser(db, joined.user.id)).map((w) => w.role)).toEqual(['owner', 'member']);
    expect(await findUsableInvite(db, token)).toBeNull();
    // The used-up invite cannot create a second account; that account is rolled back entirely.
    const again = await createUser(db, {
      email: 'late@example.com',
      password: 'violet tractor umbrella',
      invite,
    });
    expect(again).toEqual({ ok: false, reason: 'invite_used_up' });
    expect(
      await first(db.orm.select().from(db.t.users).where(eq(db.t.users.email, 'late@example.com'))),
    ).toBeUndefined();
  });
});

describe('sessions', () => {
  it('resolves a live session, slides its expiry, and ends it server-side', async () => {
    const user = await authenticate(db, 'ada@example.com', 'violet tractor umbrella');
    if (!user) throw new Error('no user');
    const t0 = 1_800_000_000_000;
    const token = await createSession(db, user.id, 'test', t0);
    expect(token).toMatch(/^sim_ss_/);
    expect(
      await first(db.orm.select().from(db.t.sessions).where(eq(db.t.sessions.idHash, token))),
    ).toBeUndefined();
    expect(await resolveSession(db, token, t0 + 1000)).toEqual(user);
    // Idle just short of the limit, then used: still alive, and the idle clock restarts.
    const later = t0 + SESSION_IDLE_MS - 1000;
    expect(await resolveSession(db, token, later)).toEqual(user);
    expect(await resolveSession(db, token, later + SESSION_IDLE_MS - 1000)).toEqual(user);
    // …but never beyond the absolute limit.
    expect(await resolveSession(db, token, t0 + SESSION_ABSOLUTE_MS + 1)).toBeNull();
    expect(
      await first(
        db.orm
          .select()
          .from(db.t.sessions)
          .where(eq(db.t.sessions.idHash, hashToken(token))),
      ),
    ).toBeUndefined();
  });

  it('expires after the idle limit', async () => {
    const user = await authenticate(db, 'ada@example.com', 'violet tractor umbrella');
    if (!user) throw new Error('no user');
    const token = await createSession(db, user.id, null, 1_000);
    expect(await resolveSession(db, token, 1_000 + SESSION_IDLE_MS)).toBeNull();
  });

  it('ends every session of a user but the one kept', async () => {
    const user = await authenticate(db, 'ada@example.com', 'violet tractor umbrella');
    if (!user) throw new Error('no user');
    const a = await createSession(db, user.id, null);
    const b = await createSession(db, user.id, null);
    expect(await endAllSessions(db, user.id, a)).toBeGreaterThanOrEqual(1);
    expect(await resolveSession(db, a)).toEqual(user);
    expect(await resolveSession(db, b)).toBeNull();
  });
});

describe('upstream credentials', () => {
  it('stores the token sealed and bound to the workspace, and loads it for members only', async () => {
    const box = new SecretBox([newKey]);
    const user = await authenticate(db, 'ada@example.com', 'violet tractor umbrella');
    if (!user) throw new Error('no user');
    const workspaceId = (await getPersonalWorkspaceId(db, user.id)) as string;
    expect(await loadUpstreamCredential(db, box, workspaceId, user.id)).toBeNull();

    await saveUpstreamCredential(db, box, {
      workspaceId,
      linkedBy: user.id,
      token: 'sb_live_token_ABCD',
      upstreamUserId: 'ada-upstream',
      verifiedAt: 42,
    });
    const row = await first(
      db.orm
        .select()
        .from(db.t.upstreamCredentials)
        .where(eq(db.t.upstreamCredentials.workspaceId, workspaceId)),
    );
    expect(row?.tokenCiphertext).not.toContain('sb_live_token');
    expect(row).toMatchObject({ keyId: newKey.id, tokenLast4: 'ABCD', verifiedAt: 42 });
    expect(await getCredentialSummary(db, workspaceId)).toEqual({
      tokenLast4: 'ABCD',
      upstreamUserId: 'ada-upstream',
      verifiedAt: 42,
      linkedByEmail: 'ada@example.com',
    });
    expect(await loadUpstreamCredential(db, box, workspaceId, user.id)).toEqual({
      token: 'sb_live_token_ABCD',
      userId: 'ada-upstream',
    });
    expect((await listWorkspacesForUser(db, user.id))[0]?.hasCredential).toBe(true);

    // Not a member: nothing.
    const other = await authenticate(db, 'owner@example.com', 'violet tractor umbrella');
    expect(await loadUpstreamCredential(db, box, workspaceId, other?.id ?? '')).toBeNull();
  });

  it('falls back to a stable default upstream user id for members who never entered one', async () => {
    const box = new SecretBox([newKey]);
    const owner = await authenticate(db, 'owner@example.com', 'violet tractor umbrella');
    const guest = await authenticate(db, 'guest@example.com', 'violet tractor umbrella');
    if (!owner || !guest) throw new Error('no user');
    const teamId = (await getPersonalWorkspaceId(db, owner.id)) as string;
    await saveUpstreamCredential(db, box, {
      workspaceId: teamId,
      linkedBy: owner.id,
      token: 'owner-token-9999',
      upstreamUserId: 'owner-up',
      verifiedAt: 1,
    });
    expect(await loadUpstreamCredential(db, box, teamId, guest.id)).toEqual({
      token: 'owner-token-9999',
      userId: defaultUpstreamUserId(guest.id),
    });
    expect(defaultUpstreamUserId(guest.id)).toMatch(/^u_[0-9a-f]{16}$/);
    expect(defaultUpstreamUserId(guest.id)).toBe(defaultUpstreamUserId(guest.id));
    expect(await removeUpstreamCredential(db, teamId)).toBe(true);
    expect(await loadUpstreamCredential(db, box, teamId, owner.id)).toBeNull();
    expect(await removeUpstreamCredential(db, teamId)).toBe(false);
  });

  it('re-encrypts envelopes under an old key, skips current ones, and counts the unreadable', async () => {
    const user = await authenticate(db, 'ada@example.com', 'violet tractor umbrella');
    const owner = await authenticate(db, 'owner@example.com', 'violet tractor umbrella');
    if (!user || !owner) throw new Error('no user');
    const adaWs = (await getPersonalWorkspaceId(db, user.id)) as string;
    const ownerWs = (await getPersonalWorkspaceId(db, owner.id)) as string;
    const oldBox = new SecretBox([oldKey]);
    await saveUpstreamCredential(db, oldBox, {
      workspaceId: adaWs,
      linkedBy: user.id,
      token: 'rotate-me-1111',
      upstreamUserId: 'a',
      verifiedAt: 1,
    });
    await saveUpstreamCredential(db, oldBox, {
      workspaceId: ownerWs,
      linkedBy: owner.id,
      token: 'rotate-me-2222',
      upstreamUserId: 'o',
      verifiedAt: 1,
    });

    // Without the old key nothing can be opened: both fail, nothing changes.
    expect(await reencryptCredentials(db, new SecretBox([newKey]))).toEqual({
      reencrypted: 0,
      alreadyCurrent: 0,
      failed: 2,
    });

    const rotated = new SecretBox([newKey, oldKey]);
    expect(await reencryptCredentials(db, rotated)).toEqual({ reencrypted: 2, alreadyCurrent: 0, failed: 0 });
    expect(await reencryptCredentials(db, rotated)).toEqual({ reencrypted: 0, alreadyCurrent: 2, failed: 0 });
    const rows = await db.orm.select().from(db.t.upstreamCredentials);
    expect(
      rows.every((r) => r.keyId === newKey.id && SecretBox.keyIdOf(r.tokenCiphertext) === newKey.id),
    ).toBe(true);
    // Readable with the new key alone now.
    expect((await loadUpstreamCredential(db, new SecretBox([newKey]), adaWs, user.id))?.token).toBe(
      'rotate-me-1111',
    );
  });
});
