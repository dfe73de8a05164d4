import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/oauth/scopes.js';
import {
  type Harness,
  type Json,
  jsonIn,
  type RawClient,
  startHarness,
  rawV1 as v1,
  rawV2 as v2,
} from '../../helpers/harness.js';

/**
 * Resources, resource links and completion with both protocol eras' SDK clients: the
 * templates are listed, tool results link to resources the client can read, reads obey the grant's
 * scopes like the tools they go through, and ids complete from the caller's own recent searches.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

// Records holding posts come fenced as untrusted content: the JSON is inside the fence.
const json = (read: Json) => JSON.parse(jsonIn(read.contents[0].text));

describe.each([
  ['v2 client (2026-07-28)', v2],
  ['v1 client (2025 era)', v1],
])('resources with the %s', (_label, connect) => {
  let client: RawClient;
  let upstreamToken: string;
  let searchId: number;
  let submitted: Json;
  const upstream = async (path: string): Promise<Json> =>
    (
      await fetch(`${h.sandbox.searchUrl}${path}`, {
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      })
    ).json();
  const connectWith = async (scopes?: readonly Scope[]) =>
    connect(h.mcpUrl, await h.token({ upstreamToken, ...(scopes ? { scopes } : {}) }));

  beforeAll(async () => {
    upstreamToken = await h.credential({ producer: true });
    client = await connectWith();
    submitted = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'wind turbines' },
    });
    searchId = submitted.structuredContent.search_id;
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the resource templates the grant may read', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t: Json) => t.uriTemplate)).toEqual([
      'social-intel://keyword-searches/{id}',
      'social-intel://keyword-searches/{id}/posts{?platform,offset,limit}',
      'social-intel://keyword-searches/{id}/topic-tree{?platform}',
      'social-intel://user-searches/{id}',
      'social-intel://user-searches/{id}/posts{?offset,limit}',
      'social-intel://expert-searches/{id}',
      'social-intel://agent-runs/{id}',
      'social-intel://agent-runs/{id}/report',
    ]);
    for (const t of resourceTemplates)
      expect(t.mimeType, t.name).toMatch(/^(application\/json|text\/markdown)$/);
    const agentOnly = await connectWith(['agent:read']);
    const listed = (await agentOnly.listResourceTemplates()).resourceTemplates.map((t: Json) => t.name);
    expect(listed).toEqual(['agent-run', 'agent-run-report']);
    await agentOnly.close();
  });

  it("follows a tool result's resource links to the full data", async () => {
    const links = submitted.content.filter((c: Json) => c.type === 'resource_link');
    expect(links).toHaveLength(3);
    const record = await upstream(`/api/iq/keyword_search/${searchId}`);
    const [search, posts, tree] = await Promise.all(
      links.map((l: Json) => client.readResource({ uri: l.uri })),
    );
    for (const [i, read] of [search, posts, tree].entries()) {
      expect(read.contents[0].uri).toBe(links[i].uri);
      expect(read.contents[0].mimeType).toBe(links[i].mimeType);
    }
    // The whole record but its posts lists, which the token budget may cut (the rest is paged).
    const { posts: keptPosts, ...analysis } = json(search).results;
    const { posts: allPosts, ...recordAnalysis } = record.results;
    expect(analysis).toEqual(recordAnalysis);
    for (const [kind, list] of Object.entries(keptPosts as Record<string, Json[]>))
      expect(list).toEqual(allPosts[kind].slice(0, list.length));
    expect(search.contents[0].text).toMatch(/user-generated content/);
    const all = (await upstream(`/api/iq/keyword_search/${searchId}/posts_data`)).posts;
    expect(json(posts).posts).toEqual(all.slice(0, 20));
    expect(json(posts).next_offset).toBe(20);
    expect(tree.contents[0].text).toMatch(/^Topic trees of keyword search \d+: /);
  });

  it('reads posts pages with query parameters in any order, or none of some', async () => {
    const all = (await upstream(`/api/iq/keyword_search/${searchId}/posts_data?platform=twitter`)).posts;
    const base = `social-intel://keyword-searches/${searchId}/posts`;
    const a = json(await client.readResource({ uri: `${base}?limit=5&platform=twitter&offset=3` }));
    const b = json(await client.readResource({ uri: `${base}?platform=twitter&offset=3&limit=5` }));
    expect(a.posts).toEqual(all.slice(3, 8));
    expect(b).toEqual(a);
    expect(a.next_offset).toBe(8);
    const next = json(
      await client.readResource({ uri: `${base}?platform=twitter&offset=${a.next_offset}&limit=5` }),
    );
    expect(next.posts).toEqual(all.slice(8, 13));
  });

  it('reads an agent report as markdown, and the run as JSON', async () => {
    const run = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Wind power mood?' },
    });
    const [reportLink, runLink] = run.content.filter((c: Json) => c.type === 'resource_link');
    const report = await client.readResource({ uri: reportLink.uri });
    expect(report.contents[0].mimeType).toBe('text/markdown');
    expect(report.contents[0].text).toMatch(/^Agent run [0-9a-f-]{36}: completed · confidence /);
    expect(report.contents[0].text).toContain(
      `<untrusted-content>\n${run.structuredContent.result.report_markdown.trim()}\n</untrusted-content>`,
    );
    const record = json(await client.readResource({ uri: runLink.uri }));
    expect(record.result.report_markdown).toBe(run.structuredContent.result.report_markdown);
    expect(record.result.report_html).toBeUndefined();
    expect(JSON.stringify(record)).not.toContain('untrusted-content');
    expect(record.run_id).toBe(run.structuredContent.run_id);
  });

  it('answers unknown resources, ids and parameters with errors', async () => {
    const code = async (uri: string) =>
      client.readResource({ uri }).then(
        () => 'read',
        (e: Json) => ({ code: e.code, message: String(e.message) }),
      );
    for (const uri of [
      'social-intel://keyword-searches/987654',
      'social-intel://nothing-here/1',
      'https://example.com/keyword-searches/1',
    ]) {
      expect([-32002, -32602], uri).toContain(((await code(uri)) as Json).code);
    }
    const unknownQuery = (await code(`social-intel://keyword-searches/${searchId}/posts?page=2`)) as Json;
    expect(unknownQuery.code).toBe(-32602);
    expect(unknownQuery.message).toMatch(/takes no query parameter "page"/);
    const badId = (await code('social-intel://agent-runs/not-a-uuid')) as Json;
    expect(badId.code).toBe(-32602);
    expect(badId.message).toMatch(/run_id: must be a UUID/);
  });

  it('reads under the same scopes as the tools: none without searches:read', async () => {
    const agentOnly = await connectWith(['agent:read']);
    const error = await agentOnly.readResource({ uri: `social-intel://keyword-searches/${searchId}` }).then(
      () => null,
      (e: Json) => e,
    );
    expect(String(error?.message)).toMatch(/get_keyword_search needs the searches:read permission/);
    await agentOnly.close();
    const rows = (await h.server.sql.all(
      "SELECT tool, status, detail FROM audit_events WHERE kind = 'tool_call' ORDER BY id DESC LIMIT 1",
    )) as Json[];
    expect(rows[0].tool).toBe('get_keyword_search');
    expect(JSON.parse(rows[0].detail)).toMatchObject({ via: 'resource', reason: 'insufficient_scope' });
  });

  it("completes ids from the caller's own searches and runs, and fixed values", async () => {
    const template = 'social-intel://keyword-searches/{id}/posts{?platform,offset,limit}';
    const other = await h.credential();
    const otherClient = await connect(h.mcpUrl, await h.token({ upstreamToken: other }));
    const theirs = (
      await otherClient.callTool({ name: 'submit_keyword_search', arguments: { query: 'not yours' } })
    ).structuredContent.search_id;
    await otherClient.close();

    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: template },
      argument: { name: 'id', value: '' },
    });
    const mine = (await upstream('/api/iq/keyword_search')).keyword_searches.map((s: Json) => String(s.id));
    expect([...ids.completion.values].sort()).toEqual([...mine].sort());
    expect(ids.completion.values).toContain(String(searchId));
    expect(ids.completion.values).not.toContain(String(theirs));
    const prefixed = await client.complete({
      ref: { type: 'ref/resource', uri: template },
      argument: { name: 'id', value: String(searchId) },
    });
    expect(prefixed.completion.values).toContain(String(searchId));
    const platforms = await client.complete({
      ref: { type: 'ref/resource', uri: template },
      argument: { name: 'platform', value: 'tw' },
    });
    expect(platforms.completion.values).toEqual(['twitter']);
    const runs = await client.complete({
      ref: { type: 'ref/resource', uri: 'social-intel://agent-runs/{id}/report' },
      argument: { name: 'id', value: '' },
    });
    expect(runs.completion.values.length).toBeGreaterThan(0);
    for (const id of runs.completion.values) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
