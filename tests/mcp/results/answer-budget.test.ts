import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clean } from '../../../src/mcp/results/fence.js';
import { estimateTokens } from '../../../src/mcp/results/tokens.js';
import {
  type Harness,
  type Json,
  type RawClient,
  rawV2,
  startHarness,
  textOf,
} from '../../helpers/harness.js';
import { HOSTILE_POSTS } from '../../helpers/hostile-posts.js';

/**
 * The answer budget, read as the model reads it: a 5,000-post keyword search (four platforms and
 * YouTube's comments, 1,000 posts each) driven through every tool, detail and limit a model may pass, and every answer (its
 * text, and its structuredContent, which some clients show instead) within 20,000 o200k tokens
 * counted by gpt-tokenizer, the server's default budget. The server's own estimate (it does not load
 * a tokenizer) is held at or above the real count on every answer.
 */
const BUDGET = 20_000;
// 1,000 posts each, and YouTube's 1,000 comments besides its videos.
const PLATFORMS = ['twitter', 'reddit', 'bluesky', 'youtube'];

let h: Harness;
let client: RawClient;
let searchId: number;
const answers: Array<{ call: string; text: string; structured: string }> = [];

async function call(name: string, args: Json = {}): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
  answers.push({
    call: `${name} ${JSON.stringify(args)}`,
    text: textOf(r),
    structured: JSON.stringify(r.structuredContent ?? null),
  });
  return r;
}

/** A call whose answer may be a refusal (a completed run cannot be rerun or cancelled): measured all the same. */
async function answer(name: string, args: Json): Promise<void> {
  const r = await client.callTool({ name, arguments: args });
  answers.push({
    call: `${name} ${JSON.stringify(args)}`,
    text: textOf(r),
    structured: JSON.stringify(r.structuredContent ?? null),
  });
}

beforeAll(async () => {
  h = await startHarness();
  const upstreamToken = await h.credential({ synth_posts: 1_000, producer: true, credits: 100 });
  client = await rawV2(h.mcpUrl, await h.token({ upstreamToken }));
  const submitted = await call('submit_keyword_search', {
    query: 'energy prices',
    platforms: PLATFORMS,
    max_post: 1_000,
  });
  searchId = submitted.structuredContent.search_id;
}, 120_000);
afterAll(async () => {
  await client?.close();
  await h?.close();
});

describe('a 5,000-post search, every answer within 20,000 o200k tokens', () => {
  it('the search holds 5,000 posts', async () => {
    const page = await call('get_keyword_search_posts_data', { search_id: searchId, limit: 1 });
    expect(page.structuredContent.total).toBe(5_000);
  });

  it('search answers, with either detail', async () => {
    for (const detail of ['summary', 'full']) {
      await call('submit_keyword_search', {
        query: 'energy prices',
        platforms: PLATFORMS,
        max_post: 1_000,
        detail,
      });
      await call('get_keyword_search', { search_id: searchId, detail });
    }
    await call('get_keyword_searches', {});
    const full = answers.find((a) => a.call.startsWith('get_keyword_search {') && a.call.includes('full'));
    // The full record is cut, and says where its posts continue.
    expect(full?.text).toMatch(
      /Answer cut to fit 20,000 tokens \(results\.posts\.\w+: \d+ of 1000 items kept, the rest: get_keyword_search_posts_data with search_id \d+, platform "\w+", offset \d+/,
    );
  });

  it('posts pages, any platform, detail and limit, size themselves to the budget', async () => {
    for (const platform of [undefined, 'twitter', 'youtube', 'youtube_comment']) {
      for (const detail of ['summary', 'full']) {
        for (const limit of [undefined, 1, 100, 500]) {
          const args: Json = { search_id: searchId, detail };
          if (platform) args.platform = platform;
          if (limit) args.limit = limit;
          const r = await call('get_keyword_search_posts_data', args);
          const s = r.structuredContent;
          if (s.next_offset !== undefined) expect(s.next_offset).toBe(s.returned);
          if (limit === 500 && s.total > s.returned)
            expect(textOf(r)).toMatch(/cut to fit the token budget\)\.$/m);
        }
      }
    }
    await call('get_keyword_search_posts_data', { search_id: searchId, offset: 4_900, limit: 500 });
  });

  it('topic trees, resources of the search', async () => {
    await call('get_keyword_search_topic_tree', { search_id: searchId });
    for (const platform of PLATFORMS)
      await call('get_keyword_search_topic_tree', { search_id: searchId, platform });
    for (const uri of [
      `social-intel://keyword-searches/${searchId}`,
      `social-intel://keyword-searches/${searchId}/posts?limit=500`,
      `social-intel://keyword-searches/${searchId}/topic-tree`,
    ]) {
      const read = await client.readResource({ uri });
      const text = read.contents.map((c: Json) => c.text ?? '').join('\n');
      answers.push({ call: `resources/read ${uri}`, text, structured: 'null' });
    }
  });

  it('user, expert, agent and schedule tools', async () => {
    const user = await call('submit_user_search', {
      query: 'examplenews',
      platform: 'twitter',
      max_post: 1_000,
    });
    const userId = user.structuredContent.search_id;
    for (const detail of ['summary', 'full']) {
      await call('get_user_search', { search_id: userId, detail });
      await call('get_user_search_posts_data', { search_id: userId, detail, limit: 500 });
    }
    await call('get_user_searches', {});
    const expert = await call('submit_expert_search', { query: 'energy economists' });
    const expertId = expert.structuredContent.search_id;
    for (const detail of ['summary', 'full'])
      await call('get_expert_search', { search_id: expertId, detail });
    await call('get_expert_searches', {});
    const run = await call('start_agent_run', { question: 'What are people saying about energy prices?' });
    const runId = run.structuredContent.run_id;
    for (const detail of ['summary', 'full']) await call('get_agent_run', { run_id: runId, detail });
    await call('list_agent_runs', { limit: 100 });
    await call('update_agent_run', { run_id: runId, pinned: true, label: 'energy' });
    await answer('rerun_agent_run', { run_id: runId });
    await answer('cancel_agent_run', { run_id: runId });
    await call('delete_agent_run', { run_id: runId });
    const schedule = await call('create_agent_schedule', {
      name: 'Energy prices',
      question: 'Energy prices this week?',
      recurrence_type: 'daily',
      recurrence_time: '09:00',
      recurrence_timezone: 'Europe/London',
      starts_at: '2026-12-02T00:00:00Z',
    });
    const scheduleId = schedule.structuredContent.id;
    await call('list_agent_schedules', {});
    await call('get_agent_schedule', { schedule_id: scheduleId });
    await call('list_agent_schedule_runs', { schedule_id: scheduleId });
    await call('update_agent_schedule', { schedule_id: scheduleId, recurrence_time: '10:00' });
    await call('pause_agent_schedule', { schedule_id: scheduleId });
    await call('resume_agent_schedule', { schedule_id: scheduleId });
    await call('delete_agent_schedule', { schedule_id: scheduleId });
    await call('usage', {});
    await call('get_usage_by_month', { month: '2026-11' });
    await call('get_integration_setup', {});
    await call('update_integration_setup', { return_url: 'https://hooks.example.com/in' });
  });

  it('holds every answer within the budget, and the estimate at or above the real count', () => {
    expect(answers.length).toBeGreaterThan(60);
    // Every tool of the catalog answered at least once.
    expect(
      new Set(answers.filter((a) => !a.call.startsWith('resources/')).map((a) => a.call.split(' ')[0])).size,
    ).toBe(31);
    const over: string[] = [];
    const under: string[] = [];
    for (const a of answers) {
      for (const [what, text] of [
        ['text', a.text],
        ['structuredContent', a.structured],
      ] as const) {
        const real = countTokens(text);
        if (real > BUDGET) over.push(`${a.call} ${what}: ${real}`);
        if (estimateTokens(text) < real) under.push(`${a.call} ${what}: ${estimateTokens(text)} < ${real}`);
      }
    }
    expect(over).toEqual([]);
    expect(under).toEqual([]);
  });

  it('summaries point only at tools whose answers were measured here', () => {
    const measured = new Set(answers.map((a) => a.call.split(' ')[0]));
    for (const a of answers) {
      for (const [name] of a.text.matchAll(/\b(?:get|list|submit)_[a-z_]+\b/g))
        expect(measured, `${a.call} points at ${name}`).toContain(name);
    }
  });

  it('the estimate stays at or above o200k on hostile text', () => {
    // As the model reads it: cleaned of invisible characters (../../src/mcp/results/fence.ts).
    for (const text of HOSTILE_POSTS.map(clean))
      expect(estimateTokens(text)).toBeGreaterThanOrEqual(countTokens(text));
  });
});
