import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, workspaceMembers, writeReservations } from '../../src/db/schema/index.js';
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

function setCap(userId: string, cap: number | null) {
  ts.server.db
    .update(workspaceMembers)
    .set({ monthlyWriteCap: cap })
    .where(and(eq(workspaceMembers.workspaceId, t.id), eq(workspaceMembers.userId, userId)))
    .run();
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
    const used = writesThisMonth(db, t.id, t.alice.id);
    setCap(t.alice.id, used + 1);
    const before = await searchesCreated();

    const results: Json[] = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.alice.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH }),
      ),
    );
    const passed = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    expect(passed).toHaveLength(1);
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.content[0].text).toMatch(/^Monthly limit reached/);
    expect((await searchesCreated()) - before).toBe(1);
    expect(writesThisMonth(db, t.id, t.alice.id)).toBe(used + 1);
    const refusals = db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.userId, t.alice.id), eq(auditEvents.status, 'refused')))
      .all();
    expect(refusals).toHaveLength(49);
    expect(refusals.every((r) => JSON.parse(r.detail ?? '{}').reason === 'write_cap')).toBe(true);
    // Every reservation was released once its call was audited.
    expect(db.select().from(writeReservations).all()).toEqual([]);
  });

  it('a call upstream refuses (402) gives its reservation back: the next call still fits under the cap', async () => {
    const { db } = ts.server;
    const used = writesThisMonth(db, t.id, t.bob.id);
    setCap(t.bob.id, used + 1);
    await ts.control('PATCH', `/credentials/${t.token}`, { credits: 0 });
    const broke = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(broke.isError).toBe(true);
    expect(broke.content[0].text).toMatch(/Out of credits \(402\)/);
    await ts.control('PATCH', `/credentials/${t.token}`, { credits: 1000 });
    const next = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(next.isError).toBeFalsy();
    const after = await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(after.content[0].text).toMatch(/^Monthly limit reached/);
    expect(db.select().from(writeReservations).all()).toEqual([]);
  });
});
