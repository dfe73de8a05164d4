import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteFile } from '../../src/db/client.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir();
afterAll(() => dir.remove());

describe('a SQLite connection', () => {
  it('is opened with the pragmas every connection needs, and a 2 MB page cache', () => {
    const sqlite = openSqliteFile(join(dir.path, 'pragmas.db'));
    try {
      const pragma = (name: string) => sqlite.pragma(name, { simple: true });
      expect(pragma('journal_mode')).toBe('wal');
      expect(pragma('foreign_keys')).toBe(1);
      expect(pragma('synchronous')).toBe(1); // NORMAL
      expect(pragma('busy_timeout')).toBe(5_000);
      // better-sqlite3's build default is 16 MB (-16000), which a busy server fills as its tables grow
      // (db/client.ts: the soak's "native growth"); SQLite's own default is kept instead.
      expect(pragma('cache_size')).toBe(-2_000);
    } finally {
      sqlite.close();
    }
  });
});
