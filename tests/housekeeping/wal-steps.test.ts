import { statSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import type { SqliteSharing } from '../../src/db/store/index.js';
import { scalar } from '../../src/db/store/index.js';
import { passOffThread } from '../../src/housekeeping/off-thread.js';
import { leftOf, seedExpiredGrants } from '../helpers/expired-grants.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';

/**
 * The WAL a SQLite housekeeping pass grew is shrunk a step per turn the server lends, never in one
 * truncation that holds the server's writes for as long as the whole file takes: SQLite only, the one
 * engine with a WAL file and a pass on a worker thread. The step is made small so a small file shows it.
 */
const NOW = Date.now();
const STEP = 256 * 1024;

const fixture = oauthFixture({ server: { engine: 'sqlite' } });

it('shrinks the WAL it grew a step per turn, and leaves it empty', async () => {
  const { server, user } = fixture;
  await seedExpiredGrants(server, user, 'wal', 5_000, NOW);
  const file = server.db.sqliteFile as SqliteSharing;
  const walBytes = () => statSync(`${file.path}-wal`).size;
  // The WAL's size as each turn the server lent ends.
  const sizes: number[] = [];
  const watched: SqliteSharing = {
    path: file.path,
    pauseCheckpoints: () => file.pauseCheckpoints(),
    lendWriteTurn: async (write) => {
      try {
        return await file.lendWriteTurn(write);
      } finally {
        sizes.push(walBytes());
      }
    },
  };
  const pass = passOffThread(watched, NOW, {}, { walShrinkStepBytes: STEP });
  const counts = await pass.counts;
  expect(counts.tokens).toBe(10_000);
  expect(await leftOf(server, 'wal')).toMatchObject({ grants: 5_000, tokens: 5_000, emptyDeadGrants: 0 });

  const largest = Math.max(...sizes);
  expect(largest).toBeGreaterThan(4 * STEP);
  const cuts = sizes.slice(1).map((size, i) => (sizes[i] as number) - size);
  // No turn cut more than a step (and the frame its commit wrote); the file was cut in several turns.
  expect(Math.max(...cuts)).toBeLessThanOrEqual(STEP + 8 * 4_096);
  expect(cuts.filter((cut) => cut > 0).length).toBeGreaterThanOrEqual(Math.floor(largest / STEP) - 1);
  expect(sizes.at(-1)).toBe(0);
  expect(walBytes()).toBe(0);
  expect(await scalar(server.db, sql`PRAGMA integrity_check`)).toBe('ok');
  // The server's automatic checkpoints, paused for the pass, are back once its worker has ended.
  await pass.stop();
  expect(Number(await scalar(server.db, sql`PRAGMA wal_autocheckpoint`))).toBe(1000);
});
