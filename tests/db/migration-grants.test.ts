import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { MIGRATIONS_FOLDER, migrate } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The migration to one live grant per (user, client, workspace) runs on databases that already hold
 * one grant per past authorization: it must merge them without breaking any token that works today.
 */
const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

/** A migrations folder holding the migrations before this one: the database as the previous version left it. */
function migrationsBeforeOAuthEdges(root: string): string {
  const folder = join(root, 'migrations-before');
  mkdirSync(join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  const entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith('_oauth_edges')),
  );
  expect(entries.length).toBeGreaterThan(0);
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const entry of entries) {
    copyFileSync(join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), join(folder, `${entry.tag}.sql`));
  }
  return folder;
}

describe('migration to one connected app per (user, client, workspace)', () => {
  it('merges live duplicate grants into the newest: union of scopes, every token kept in its own family', () => {
    const dir = tempDir('sim-migrate-grants-');
    dirs.push(dir);
    const db = openDatabase(join(dir.path, 'old.db'));
    migrate(db, migrationsBeforeOAuthEdges(dir.path));
    const sql = db.$client;
    sql
      .prepare(
        "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'a@example.com', 'x', 1, 1)",
      )
      .run();
    sql
      .prepare(
        "INSERT INTO workspaces (id, name, kind, created_at, updated_at) VALUES ('w1', 'Personal', 'personal', 1, 1)",
      )
      .run();
    const grant = sql.prepare(
      "INSERT INTO oauth_grants (id, user_id, workspace_id, client_id, scopes, resource, created_at, revoked_at) VALUES (?, 'u1', 'w1', ?, ?, 'http://localhost/mcp', ?, ?)",
    );
    grant.run('g-old', 'c1', 'searches:read agent:write', 100, null);
    grant.run('g-new', 'c1', 'searches:read searches:write', 200, null);
    grant.run('g-dead', 'c1', 'account:write', 300, 400);
    grant.run('g-other-client', 'c2', 'agent:read', 100, null);
    const token = sql.prepare(
      "INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, created_at, expires_at) VALUES (?, ?, 'access', 'searches:read', 1, 9999999999999)",
    );
    for (const [hash, grantId] of [
      ['t-old', 'g-old'],
      ['t-new', 'g-new'],
      ['t-dead', 'g-dead'],
      ['t-other', 'g-other-client'],
    ])
      token.run(hash, grantId);
    sql
      .prepare(
        "INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, created_at, expires_at) VALUES ('t-old-refresh', 'g-old', 'refresh', NULL, 1, 9999999999999)",
      )
      .run();
    sql
      .prepare(
        "INSERT INTO oauth_codes (code_hash, client_id, user_id, workspace_id, redirect_uri, code_challenge, scopes, resource, created_at, expires_at, used_at, grant_id) VALUES ('code-old', 'c1', 'u1', 'w1', 'http://localhost/cb', 'x', 'searches:read', 'r', 1, 2, 1, 'g-old')",
      )
      .run();

    expect(migrate(db).applied).toBeGreaterThan(0);

    const grants = sql
      .prepare('SELECT id, scopes, revoked_at, revoked_reason FROM oauth_grants ORDER BY id')
      .all();
    expect(grants).toEqual([
      { id: 'g-dead', scopes: 'account:write', revoked_at: 400, revoked_reason: null },
      {
        id: 'g-new',
        scopes: 'searches:read searches:write agent:write',
        revoked_at: null,
        revoked_reason: null,
      },
      {
        id: 'g-old',
        scopes: 'searches:read agent:write',
        revoked_at: expect.any(Number),
        revoked_reason: 'merged',
      },
      { id: 'g-other-client', scopes: 'agent:read', revoked_at: null, revoked_reason: null },
    ]);
    const tokens = sql
      .prepare(
        'SELECT token_hash, grant_id, family_id, scopes, revoked_at FROM oauth_tokens ORDER BY token_hash',
      )
      .all();
    const access = 'searches:read';
    expect(tokens).toEqual([
      { token_hash: 't-dead', grant_id: 'g-dead', family_id: 'g-dead', scopes: access, revoked_at: null },
      { token_hash: 't-new', grant_id: 'g-new', family_id: 'g-new', scopes: access, revoked_at: null },
      { token_hash: 't-old', grant_id: 'g-new', family_id: 'g-old', scopes: access, revoked_at: null },
      // A refresh token keeps what its own authorization allowed, not the merged union.
      {
        token_hash: 't-old-refresh',
        grant_id: 'g-new',
        family_id: 'g-old',
        scopes: 'searches:read agent:write',
        revoked_at: null,
      },
      {
        token_hash: 't-other',
        grant_id: 'g-other-client',
        family_id: 'g-other-client',
        scopes: access,
        revoked_at: null,
      },
    ]);
    expect(sql.prepare('SELECT grant_id, family_id, redirect_uri_sent FROM oauth_codes').get()).toEqual({
      grant_id: 'g-new',
      family_id: 'g-old',
      redirect_uri_sent: 1,
    });
    // From now on a second live grant for the same (user, client, workspace) cannot exist.
    expect(() => grant.run('g-dup', 'c1', 'searches:read', 500, null)).toThrow(/UNIQUE/);
    closeDatabase(db);
  });
});
