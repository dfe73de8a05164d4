import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startHousekeepingPass } from '../../src/housekeeping/index.js';
import { leftOf, seedExpiredGrants } from '../helpers/expired-grants.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';

/**
 * The housekeeping pass as the server starts it: on a SQLite file on a worker thread with its own
 * connection (the server's connection lends it turns to write), on PostgreSQL on the event loop. What
 * it deletes is the same either way. (A pass stopped midway: pass-stopped.test.ts.)
 */
const NOW = Date.now();

const fixture = oauthFixture();

const countTokens = async () =>
  Number(((await fixture.server.sql.get('SELECT count(*) AS n FROM oauth_tokens')) as { n: number }).n);

describe('the housekeeping pass where the server runs it', () => {
  it('deletes exactly the expired tokens and the grants they leave empty (a worker thread on SQLite)', async () => {
    const { server, user } = fixture;
    await seedExpiredGrants(server, user, 'exact', 300, NOW);
    const pass = startHousekeepingPass(server.db, NOW);
    expect(pass.where).toBe(server.engine === 'sqlite' ? 'worker thread' : 'event loop');
    const counts = await pass.counts;
    expect(counts.tokens).toBe(600);
    expect(counts.grants).toBe(300);
    expect(await leftOf(server, 'exact')).toEqual({
      grants: 300,
      liveGrants: 300,
      tokens: 300,
      liveTokens: 300,
      emptyDeadGrants: 0,
    });
    // The worker's last checkpoint truncated the WAL file it had let grow.
    if (server.engine === 'sqlite') {
      expect(statSync(`${server.config.databasePath}-wal`).size).toBe(0);
      // The planner's statistics were refreshed, index by index, with the rows left.
      const stat = (await server.sql.get("SELECT stat FROM sqlite_stat1 WHERE idx = 'tokens_expires_idx'")) as
        | { stat: string }
        | undefined;
      expect(stat?.stat.split(' ')[0]).toBe(String(await countTokens()));
    }
  });
});
