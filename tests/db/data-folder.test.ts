import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/temp.js';

/** The data folder holds every credential at rest: owner-only, whatever the umask (today 0644/0755). */
const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function scratch(): string {
  const dir = tempDir('sim-data-');
  dirs.push(dir);
  return dir.path;
}
const mode = (path: string) => statSync(path).mode & 0o777;

/** Opens, migrates and writes so SQLite has its -wal and -shm files, and keeps them (still open). */
function openWithCompanions(path: string) {
  const db = openDatabase(path);
  migrate(db);
  expect(existsSync(`${path}-wal`)).toBe(true);
  expect(existsSync(`${path}-shm`)).toBe(true);
  return db;
}

describe('Database files 0600 in a 0700 data folder', () => {
  it('a new data folder is 0700 and the database, -wal and -shm are 0600', () => {
    const folder = join(scratch(), 'data', 'nested');
    const path = join(folder, 'app.db');
    const db = openWithCompanions(path);
    expect(mode(folder)).toBe(0o700);
    expect(mode(join(folder, '..'))).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(mode(file)).toBe(0o600);
    closeDatabase(db);
  });

  it('files and folder left readable by an older version (0644, 0755) are tightened when opened', () => {
    const folder = join(scratch(), 'data');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const path = join(folder, 'app.db');
    closeDatabase(openWithCompanions(path));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      if (!existsSync(file)) closeSync(openSync(file, 'a'));
      chmodSync(file, 0o644);
    }
    const db = openWithCompanions(path);
    expect(mode(folder)).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(mode(file)).toBe(0o600);
    closeDatabase(db);
  });

  it('a shared folder (sticky bit, like /tmp) keeps its mode; the database in it is still 0600', () => {
    const shared = join(scratch(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const path = join(shared, 'app.db');
    const db = openWithCompanions(path);
    expect(statSync(shared).mode & 0o1777).toBe(0o1777);
    expect(mode(path)).toBe(0o600);
    closeDatabase(db);
  });

  it('the development key is generated 0600 into a 0700 data folder', () => {
    const folder = join(scratch(), 'fresh-data');
    const config = loadConfig({ DATABASE_PATH: join(folder, 'app.db'), NODE_ENV: 'development' });
    expect(config.secretKeys.length).toBe(1);
    expect(mode(folder)).toBe(0o700);
    expect(mode(join(folder, 'secret.key'))).toBe(0o600);
  });
});
