import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MIGRATION_LOCK_KEY,
  migratePostgres,
  POSTGRES_MIGRATIONS_FOLDER,
} from '../../src/db/postgres/migrate.js';
import * as pgSchema from '../../src/db/postgres/schema/index.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
import { ROOT } from '../helpers/process.js';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshPostgresDatabase();
});
afterEach(async () => {
  await database.drop();
});

async function withClient<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

describe('PostgreSQL migrations', () => {
  it('apply once, in drizzle-kit bookkeeping, and are idempotent', async () => {
    const files = readMigrationFiles({ migrationsFolder: POSTGRES_MIGRATIONS_FOLDER });
    expect((await migratePostgres(database.url)).applied).toBe(files.length);
    expect((await migratePostgres(database.url)).applied).toBe(0);
    const rows = await withClient(
      (sql) => sql<{ hash: string; created_at: string }[]>`
        SELECT hash, created_at FROM drizzle.__drizzle_migrations ORDER BY id`,
    );
    expect(rows.map((r) => [r.hash, Number(r.created_at)])).toEqual(
      files.map((f) => [f.hash, f.folderMillis]),
    );
  });

  it('are up to date with the pg-core schema in code (no drift)', async () => {
    // drizzle-kit's pushSchema cannot introspect PostgreSQL here (it drops its queries' parameters),
    // so the committed migrations' last snapshot is diffed against the code instead; the database
    // those migrations build is compared with SQLite's in schema-equivalence.test.ts.
    const journal = JSON.parse(
      readFileSync(join(POSTGRES_MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
    ) as { entries: Array<{ idx: number }> };
    const last = journal.entries.at(-1)?.idx ?? 0;
    const snapshot = JSON.parse(
      readFileSync(
        join(POSTGRES_MIGRATIONS_FOLDER, 'meta', `${String(last).padStart(4, '0')}_snapshot.json`),
        'utf8',
      ),
    );
    expect(await generateMigration(snapshot, generateDrizzleJson(pgSchema))).toEqual([]);
  });

  it('leave the database as it was when one fails (one transaction)', async () => {
    await withClient((sql) => sql`CREATE TABLE users (id text)`);
    await expect(migratePostgres(database.url)).rejects.toThrow(/already exists/);
    const tables = await withClient(
      (sql) => sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(['users']);
  });

  it('wait while another migrator holds the lock', async () => {
    const holder = postgres(database.url, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // Another instance in the middle of migrating: it holds the lock until its transaction ends.
    const other = holder.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
      locked();
      await released;
    });
    await lockTaken;
    let settled = false;
    const waiting = migratePostgres(database.url).finally(() => {
      settled = true;
    });
    const waiters = await withClient(async (sql) => {
      // Until the migrator's request for the lock shows up, not granted (bounded: 500 looks).
      for (let look = 0; look < 500; look++) {
        const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
        if (row?.n) return row.n;
      }
      return 0;
    });
    expect(waiters).toBe(1);
    expect(settled).toBe(false);
    const tables = await withClient(
      (sql) => sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables).toHaveLength(0);
    release();
    await other;
    await holder.end();
    expect((await waiting).applied).toBeGreaterThan(0);
  });

  it('are safe to run from several processes at once', async () => {
    const script = `
      import { migratePostgres } from './src/db/postgres/migrate.ts';
      console.log(JSON.stringify(await migratePostgres(process.env.DATABASE_URL)));
    `;
    const runs = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: database.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      return once(child, 'exit').then(([code]) => ({ code, out, err }));
    });
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.err).toBe(0);
    const applied = results.map((r) => JSON.parse(r.out.trim()).applied as number);
    expect(applied.filter((n) => n > 0)).toHaveLength(1);
    const [row] = await withClient(
      (sql) => sql<{ n: number }[]>`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`,
    );
    expect(row?.n).toBe(applied.find((n) => n > 0));
  });
});
