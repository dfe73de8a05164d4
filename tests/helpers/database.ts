import { createPersonalWorkspace } from '../../src/accounts/workspaces.js';
import type { OpenStore, Store } from '../../src/db/store/index.js';
import { hashToken, newId, newToken } from '../../src/security/tokens.js';
import { testEngine } from './engine.js';
import { migratedTestStore } from './stores.js';

/** A migrated database of the run's engine (TEST_ENGINE), for tests of the team domain functions. */
export async function teamDb(): Promise<{ db: OpenStore; close(): Promise<void> }> {
  const ctx = await migratedTestStore(testEngine());
  return { db: ctx.store, close: () => ctx.cleanup() };
}

let n = 0;

/** A user with a personal workspace, inserted directly (no password hashing: these tests never sign in). */
export async function makeUser(
  db: Store,
  label = 'user',
): Promise<{ id: string; email: string; personalId: string }> {
  n += 1;
  const id = newId();
  const email = `${label}-${n}-${process.pid}@example.com`;
  const now = Date.now();
  await db.orm.insert(db.t.users).values({ id, email, passwordHash: 'x', createdAt: now, updatedAt: now });
  const personalId = newId();
  await createPersonalWorkspace(db, { id: personalId, userId: id, name: 'Personal', now });
  return { id, email, personalId };
}

/** A live grant (with an access token) for the user in the workspace; returns the grant id. */
export async function makeGrant(
  db: Store,
  userId: string,
  workspaceId: string,
  clientId = 'client-1',
): Promise<string> {
  const id = newId();
  const now = Date.now();
  await db.orm.insert(db.t.oauthGrants).values({
    id,
    userId,
    workspaceId,
    clientId,
    scopes: 'searches:read searches:write',
    resource: 'http://localhost/mcp',
    createdAt: now,
  });
  await db.orm.insert(db.t.oauthTokens).values({
    tokenHash: hashToken(newToken('access')),
    grantId: id,
    familyId: id,
    kind: 'access',
    scopes: 'searches:read searches:write',
    createdAt: now,
    expiresAt: now + 3600_000,
  });
  return id;
}
