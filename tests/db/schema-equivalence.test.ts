import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { migratePostgres } from '../../src/db/postgres/migrate.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { postgresShape, type Shape, sqliteShape } from './introspect.js';

/**
 * Both engines' committed migrations, applied to real databases, build the same structure: tables,
 * columns (name, comparable type, nullability, default, numbered by the database or not), primary
 * keys, foreign keys with their actions, unique constraints and indexes (with their names).
 */
describe('schema equivalence of the SQLite and PostgreSQL migrations', () => {
  let sqlite: Shape;
  let pg: Shape;
  let database: TestDatabase;
  const dir = tempDir('sim-equivalence-');

  beforeAll(async () => {
    const db = openDatabase(join(dir.path, 'e.db'));
    migrate(db);
    sqlite = sqliteShape(db.$client);
    closeDatabase(db);
    database = await freshPostgresDatabase();
    await migratePostgres(database.url);
    const sql = postgres(database.url, { max: 1 });
    try {
      pg = await postgresShape(sql);
    } finally {
      await sql.end();
    }
  });
  afterAll(async () => {
    dir.remove();
    await database.drop();
  });

  it('hold the same tables', () => {
    expect(Object.keys(sqlite).length).toBeGreaterThan(0);
    expect(Object.keys(pg)).toEqual(Object.keys(sqlite));
  });

  it('are read in full on both sides (known facts of the schema, so an empty reading cannot pass)', () => {
    for (const shape of [sqlite, pg]) {
      expect(shape.users?.uniques).toEqual(['users_email_unique(email)']);
      expect(shape.consents?.primaryKey).toEqual(['user_id', 'client_id', 'workspace_id']);
      expect(shape.audit_events?.columns.id).toEqual({
        type: 'integer',
        notNull: true,
        default: null,
        generated: true,
      });
      expect(shape.oauth_tokens?.foreignKeys).toEqual([
        '(grant_id) → oauth_grants(id) on delete cascade on update no action',
      ]);
      expect(shape.oauth_tokens?.indexes).toEqual([
        'tokens_expires_idx(expires_at)',
        'tokens_family_idx(family_id)',
        'tokens_grant_idx(grant_id)',
        'tokens_revoked_idx(revoked_at) where revoked_at is not null',
      ]);
      expect(shape.users?.columns.disabled_at?.notNull).toBe(false);
      expect(shape.oauth_grants?.uniques).toEqual([
        'grants_live_user_client_workspace_idx(user_id,client_id,workspace_id) where revoked_at is null',
      ]);
    }
  });

  it('hold the same columns, keys, constraints and indexes in every table', () => {
    // One comparison of everything, so a failure lists every difference at once.
    expect(pg).toEqual(sqlite);
  });
});
