import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_SPENDING_TOOLS } from '../../src/mcp/tools/index.js';
import { writesThisMonth } from '../../src/teams/write-cap.js';
import type { Json } from '../helpers/harness.js';
import { makeTeam, type Team } from '../helpers/team-fixture.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The monthly write cap holds exactly under concurrency: the check and the count are one transaction
 * (a reservation row in the same IMMEDIATE transaction), so parallel credit-spending calls at cap − 1
 * let exactly one through; a call upstream refuses gives its place back.
 */
let ts: TeamServer;
let t: Team;

beforeAll(async () => {
  ts = await startTeamServer();
  t = await makeTeam(ts);
});
afterAll(async () => {
  await t?.close();
  await ts?.close();
});

const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };

async function setCap(userId: string, cap: number | null) {
  await ts.server.db.orm
    .update(ts.server.db.t.workspaceMembers)
    .set({ monthlyWriteCap: cap })
    .where(
      and(
        eq(ts.server.db.t.workspaceMembers.workspaceId, t.id),
        eq(ts.server.db.t.workspaceMembers.userId, userId),
      ),
    );
}

async function searchesCreated(): Promise<number> {
  return (await ts.requests(t.token)).filter(
    (r) => r.method === 'POST' && r.path === '/api/iq/keyword_search',
  ).length;
}

describe('the monthly write cap under concurrency', () => {
  it('50 parallel credit-spending calls at cap − 1: exactly one passes, and only it reaches upstream', async () => {
    const { db } = ts.server;
    const first = await t.alice.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(first.isError).toBeFalsy();
    const used = await writesThisMonth(db, t.id, t.alice.id, CREDIT_SPENDING_TOOLS);
    await setCap(t.alice.id, used + 1);
    const before = await searchesCreated();

    // force_new: true, or each would be answered with the first search (nothing paid twice) and none sent.
    const results: Json[] = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.alice.client.callTool({ name: 'submit_keyword_search', arguments: { ...SEARCH, force_new: true } }),
      ),
    );
    const passed = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    expect(passed).toHaveLength(1);
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.content[0].text).toMatch(/^Monthly limit reached/);
    expect((await searchesCreated()) - before).toBe(1);
    expect(await writesThisMonth(db, t.id, t.alice.id, CREDIT_SPENDING_TOOLS)).toBe(used + 1);
    const refusals = await db.orm
      .select()
      .from(ts.server.db.t.auditEvents)
      .where(
        and(
          eq(ts.server.db.t.auditEvents.userId, t.alice.id),
          eq(ts.server.db.t.auditEvents.status, 'refused'),
        ),
      );
    expect(refusals).toHaveLength(49);
    expect(refusals.every((r) => JSON.parse(r.detail ?? '{}').reason === 'write_cap')).toBe(true);
    // Every reservation was released once its call was audited.
    expect(await db.orm.select().from(ts.server.db.t.writeReservations)).toEqual([]);
  });

  it('a call upstream refuses (402) gives its reservation back: the next call still fits under the cap', async () => {
    const { db } = ts.server;
    const used = await writesThisMonth(db, t.id, t.bob.id, CREDIT_SPENDING_TOOLS);
    await setCap(t.bob.id, used + 1);
    await ts.control('PATCH', `/credentials/${t.token}`, { credits: 0 });
    const broke = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(broke.isError).toBe(true);
    expect(broke.content[0].text).toMatch(/Out of credits \(402\)/);
    await ts.control('PATCH', `/credentials/${t.token}`, { credits: 1000 });
    const next = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(next.isError).toBeFalsy();
    const after = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(after.content[0].text).toMatch(/^Monthly limit reached/);
    expect(await db.orm.select().from(ts.server.db.t.writeReservations)).toEqual([]);
  });
});
