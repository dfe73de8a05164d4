import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTeamSettings } from '../../../src/teams/team-settings.js';
import { type Json, jsonIn, type RawClient, rawV2 } from '../../helpers/harness.js';
import { auditOf, makeTeam, ok, type Team } from '../../helpers/team-fixture.js';
import { startTeamServer, type TeamServer } from '../../helpers/team-server.js';

/**
 * Resources go through the read tool's own path (catalog execute), so the team policy that narrows
 * tools narrows resource reads and id completion too: with the team's work private, a member reads
 * and completes only their own searches and runs, an admin everyone's.
 */
let ts: TeamServer;
let t: Team;
let bob: RawClient;
let admin: RawClient;
let aliceSearch: number;
let aliceRun: string;
let bobSearch: number;

beforeAll(async () => {
  ts = await startTeamServer();
  t = await makeTeam(ts);
  const search = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };
  aliceSearch = (await t.alice.client.callTool({ name: 'submit_keyword_search', arguments: search }))
    .structuredContent.search_id;
  aliceRun = (
    await t.alice.client.callTool({ name: 'start_agent_run', arguments: { question: 'Alice asks?' } })
  ).structuredContent.run_id;
  bobSearch = (await t.bob.client.callTool({ name: 'submit_keyword_search', arguments: search }))
    .structuredContent.search_id;
  bob = await rawV2(ts.mcpUrl, t.bob.accessToken);
  admin = await rawV2(ts.mcpUrl, t.admin.accessToken);
  ok(await setTeamSettings(ts.server.db, t.id, t.admin.id, { membersReadTeamWork: false }));
});
afterAll(async () => {
  await bob?.close();
  await admin?.close();
  await t?.close();
  await ts?.close();
});

const failure = (read: Promise<unknown>) =>
  read.then(
    () => null,
    (e: Json) => String(e.message),
  );

describe('resources under the team policy', () => {
  it("a member cannot read a teammate's search, its posts or a teammate's report when work is private", async () => {
    for (const uri of [
      `social-intel://keyword-searches/${aliceSearch}`,
      `social-intel://keyword-searches/${aliceSearch}/posts?offset=0`,
      `social-intel://agent-runs/${aliceRun}/report`,
    ]) {
      expect(await failure(bob.readResource({ uri })), uri).toMatch(
        /This team lets members read only their own/,
      );
    }
    const refused = (await auditOf(ts, t.id)).filter(
      (r) => r.kind === 'tool_call' && r.userId === t.bob.id && r.status === 'refused',
    );
    expect(refused.at(-1)?.detail).toMatchObject({ reason: 'teammates_work', via: 'resource' });
  });

  it('a member reads their own; an admin reads everyone’s', async () => {
    const own = await bob.readResource({ uri: `social-intel://keyword-searches/${bobSearch}` });
    expect(JSON.parse(jsonIn(own.contents[0].text)).search_id).toBe(bobSearch);
    const report = await admin.readResource({ uri: `social-intel://agent-runs/${aliceRun}/report` });
    expect(report.contents[0].text).toMatch(/^Agent run .*: completed/);
  });

  it('completion offers a member only their own ids', async () => {
    const ref = { type: 'ref/resource', uri: 'social-intel://keyword-searches/{id}' };
    const mine = await bob.complete({ ref, argument: { name: 'id', value: '' } });
    expect(mine.completion.values).toEqual([String(bobSearch)]);
    const all = await admin.complete({ ref, argument: { name: 'id', value: '' } });
    expect(all.completion.values).toEqual(expect.arrayContaining([String(aliceSearch), String(bobSearch)]));
  });
});
