import { join } from 'node:path';
import { createPersonalWorkspace } from '../../src/accounts/workspaces.js';
import { closeDatabase, type Db, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { oauthGrants, oauthTokens, users } from '../../src/db/schema/index.js';
import { hashToken, newId, newToken } from '../../src/security/tokens.js';
import { tempDir } from './temp.js';

/** A migrated database in a temp folder, for tests of the team domain functions. */
export function teamDb(): { db: Db; close(): void } {
  const dir = tempDir('sim-teams-');
  const db = openDatabase(join(dir.path, 'teams.db'));
  migrate(db);
  return {
    db,
    close() {
      closeDatabase(db);
      dir.remove();
    },
  };
}

let n = 0;

/** A user with a personal workspace, inserted directly (no password hashing: these tests never sign in). */
export function makeUser(db: Db, label = 'user'): { id: string; email: string; personalId: string } {
  n += 1;
  const id = newId();
  const email = `${label}-${n}-${process.pid}@example.com`;
  const now = Date.now();
  db.insert(users).values({ id, email, passwordHash: 'x', createdAt: now, updatedAt: now }).run();
  const personalId = newId();
  createPersonalWorkspace(db, { id: personalId, userId: id, name: 'Personal', now });
  return { id, email, personalId };
}

/** A live grant (with an access token) for the user in the workspace; returns the grant id. */
export function makeGrant(db: Db, userId: string, workspaceId: string, clientId = 'client-1'): string {
  const id = newId();
  const now = Date.now();
  db.insert(oauthGrants)
    .values({
      id,
      userId,
      workspaceId,
      clientId,
      scopes: 'searches:read searches:write',
      resource: 'http://localhost/mcp',
      createdAt: now,
    })
    .run();
  db.insert(oauthTokens)
    .values({
      tokenHash: hashToken(newToken('access')),
      grantId: id,
      familyId: id,
      kind: 'access',
      scopes: 'searches:read searches:write',
      createdAt: now,
      expiresAt: now + 3600_000,
    })
    .run();
  return id;
}
