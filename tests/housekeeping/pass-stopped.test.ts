import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import { scalar } from '../../src/db/store/index.js';
import { BACKSTOP_PAGES, START_AFTER_WRITES } from '../../src/db/store/sqlite-checkpoints.js';
import { startHousekeepingPass } from '../../src/housekeeping/index.js';
import { leftOf, seedExpiredGrants } from '../helpers/expired-grants.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';

/**
 * A housekeeping pass on a SQLite file (its worker thread) stopped midway, as a server shutting down
 * stops it: SQLite only, the one engine whose pass runs on a thread that can be stopped.
 */
const NOW = Date.now();

const fixture = oauthFixture({ server: { engine: 'sqlite' } });

it('stopped midway: the server went on writing, the file is whole, and the next pass deletes the rest', async () => {
  const { server, user } = fixture;
  const n = 20_000;
  await seedExpiredGrants(server, user, 'stop', n, NOW);
  const autocheckpoint = async () => Number(await scalar(server.db, sql`PRAGMA wal_autocheckpoint`));
  // Enough writes for the server's checkpoints to have moved to their worker: its backstop is set.
  for (let i = 0; i < START_AFTER_WRITES; i++) await createSession(server.db, user.userId, 'before the pass');
  const ownCheckpoints = await autocheckpoint();
  expect(ownCheckpoints).toBe(BACKSTOP_PAGES);
  const pass = startHousekeepingPass(server.db, NOW);
  expect(await autocheckpoint()).toBe(0);
  expect(pass.where).toBe('worker thread');
  pass.counts.catch(() => undefined);
  // The server's own writes and reads go on while the worker deletes (it lends the worker its turns).
  // Each round lets the event loop take its other work, as requests arriving over the network do.
  let writes = 0;
  let remaining = 3 * n;
  while (remaining === 3 * n) {
    await new Promise((resolve) => setImmediate(resolve));
    await createSession(server.db, user.userId, 'beside the pass');
    writes += 1;
    remaining = Number(
      await scalar(server.db, sql`SELECT count(*) FROM oauth_tokens WHERE token_hash LIKE 'stop-%'`),
    );
  }
  await pass.stop();
  await expect(pass.counts).rejects.toThrow(/worker ended/);
  expect(writes).toBeGreaterThan(0);
  const stoppedAt = await leftOf(server, 'stop');
  expect(stoppedAt.tokens).toBeGreaterThan(n);
  expect(stoppedAt.tokens).toBeLessThan(3 * n);
  // A batch deletes tokens and the grants they empty in one transaction: none outlived its token.
  expect(stoppedAt.emptyDeadGrants).toBe(0);
  expect(await scalar(server.db, sql`PRAGMA integrity_check`)).toBe('ok');
  expect(await server.sql.all('PRAGMA foreign_key_check')).toEqual([]);
  // The server's automatic checkpoints, paused for the pass, are back.
  expect(await autocheckpoint()).toBe(ownCheckpoints);

  const rest = await startHousekeepingPass(server.db, NOW).counts;
  expect(rest.tokens).toBe(stoppedAt.tokens - n);
  expect(await leftOf(server, 'stop')).toEqual({
    grants: n,
    liveGrants: n,
    tokens: n,
    liveTokens: n,
    emptyDeadGrants: 0,
  });
});
