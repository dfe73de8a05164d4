import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { pushSQLiteSchema } from 'drizzle-kit/api';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import * as schema from '../../src/db/schema/index.js';
import { ROOT } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function dbPath() {
  const dir = tempDir('sim-migrate-');
  dirs.push(dir);
  return join(dir.path, 'm.db');
}

describe('migrations', () => {
  it('produce exactly the schema in code (no drift)', async () => {
    const db = openDatabase(dbPath());
    migrate(db);
    // drizzle-kit compares the live database built by the committed migrations with the schema in code.
    const diff = await pushSQLiteSchema(schema, db as never);
    // Its SQLite introspection does not read an index's WHERE, so it always wants to recreate a partial
    // index: compare those with the database's own definition instead.
    const stored = (name: string) =>
      (
        db.$client.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) as
          | { sql: string }
          | undefined
      )?.sql;
    const statements = diff.statementsToExecute.filter((statement, _i, all) => {
      const drop = /^DROP INDEX `([^`]+)`;$/.exec(statement);
      const recreate = (name: string) =>
        all.find((s) => s.startsWith('CREATE') && s.includes(` \`${name}\` ON `));
      const name = drop?.[1] ?? /^CREATE (?:UNIQUE )?INDEX `([^`]+)` ON .* WHERE /.exec(statement)?.[1];
      if (!name) return true;
      const wanted = recreate(name);
      return !(wanted?.includes(' WHERE ') && stored(name) === wanted.replace(/;$/, ''));
    });
    closeDatabase(db);
    expect(statements).toEqual([]);
  });

  it('are idempotent', () => {
    const db = openDatabase(dbPath());
    expect(migrate(db).applied).toBeGreaterThan(0);
    expect(migrate(db).applied).toBe(0);
    closeDatabase(db);
  });

  it('set the connection pragmas', () => {
    const db = openDatabase(dbPath());
    expect(db.$client.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.$client.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.$client.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(1000);
    closeDatabase(db);
  });

  it('are safe to run from several processes at once', async () => {
    const path = dbPath();
    const script = `
      import { openDatabase } from './src/db/client.ts';
      import { migrate } from './src/db/migrate.ts';
      const db = openDatabase(process.env.DB);
      console.log(JSON.stringify(migrate(db)));
    `;
    const runs = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, DB: path },
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
    // Exactly one process applied the migrations; the others found them done.
    expect(applied.filter((n) => n > 0)).toHaveLength(1);
    const db = openDatabase(path);
    const rows = db.$client.prepare('SELECT count(*) AS n FROM "__drizzle_migrations"').get() as {
      n: number;
    };
    expect(rows.n).toBe(applied.find((n) => n > 0));
    closeDatabase(db);
  });
});
