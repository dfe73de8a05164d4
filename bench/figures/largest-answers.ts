/**
 * The largest answer of every tool, in o200k tokens: a 5,000-post keyword search (four platforms and
 * YouTube's comments, 1,000 posts each), a 1,000-post user search, and the other tools' records,
 * read through every tool with the details and limits a model may pass (as
 * tests/mcp/results/answer-budget.test.ts holds them to the budget). Per tool, the largest content
 * (what every client gives the model) and the largest structuredContent (which some give it as well),
 * each with the call that gave it. Errors are answers too and are measured like the rest.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Cost, contentText, cost } from './context.js';

type Json = Record<string, unknown>;

export interface LargestAnswer {
  tool: string;
  calls: number;
  content: Cost & { call: string };
  structured: Cost & { call: string };
}

const PLATFORMS = ['twitter', 'reddit', 'bluesky', 'youtube'];

/** Drives every tool against a gateway whose sandbox credential makes 1,000 posts per platform. */
export async function measureLargestAnswers(mcpUrl: string, accessToken: string): Promise<LargestAnswer[]> {
  const client = new Client(
    { name: 'bench-largest', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  const largest = new Map<string, LargestAnswer>();
  const call = async (name: string, args: Json = {}): Promise<Json> => {
    const result = (await client.callTool({ name, arguments: args })) as Json;
    const said = `${name} ${JSON.stringify(args)}`;
    const content = { ...cost(contentText(result)), call: said };
    const structured = { ...cost(JSON.stringify(result.structuredContent ?? null)), call: said };
    const was = largest.get(name);
    largest.set(name, {
      tool: name,
      calls: (was?.calls ?? 0) + 1,
      content: was && was.content.tokens >= content.tokens ? was.content : content,
      structured: was && was.structured.tokens >= structured.tokens ? was.structured : structured,
    });
    return (result.structuredContent ?? {}) as Json;
  };
  try {
    const details = ['summary', 'full'];
    const search = { query: 'energy prices', platforms: PLATFORMS, max_post: 1_000 };
    const searchId = (await call('submit_keyword_search', search)).search_id;
    for (const detail of details) {
      await call('submit_keyword_search', { ...search, detail });
      await call('get_keyword_search', { search_id: searchId, detail });
      for (const platform of [undefined, ...PLATFORMS, 'youtube_comment'])
        for (const limit of [undefined, 100, 500])
          await call('get_keyword_search_posts_data', {
            search_id: searchId,
            detail,
            ...(platform ? { platform } : {}),
            ...(limit ? { limit } : {}),
          });
    }
    await call('get_keyword_searches', {});
    await call('get_keyword_search_topic_tree', { search_id: searchId });
    for (const platform of PLATFORMS)
      await call('get_keyword_search_topic_tree', { search_id: searchId, platform });

    const userId = (
      await call('submit_user_search', { query: 'examplenews', platform: 'twitter', max_post: 1_000 })
    ).search_id;
    for (const detail of details) {
      await call('get_user_search', { search_id: userId, detail });
      for (const limit of [undefined, 500])
        await call('get_user_search_posts_data', { search_id: userId, detail, ...(limit ? { limit } : {}) });
    }
    await call('get_user_searches', {});

    const expertId = (await call('submit_expert_search', { query: 'energy economists' })).search_id;
    for (const detail of details) await call('get_expert_search', { search_id: expertId, detail });
    await call('get_expert_searches', {});

    const runId = (await call('start_agent_run', { question: 'What are people saying about energy prices?' }))
      .run_id;
    for (const detail of details) await call('get_agent_run', { run_id: runId, detail });
    await call('list_agent_runs', { limit: 100 });
    await call('update_agent_run', { run_id: runId, pinned: true, label: 'energy' });
    await call('rerun_agent_run', { run_id: runId });
    await call('cancel_agent_run', { run_id: runId });
    await call('delete_agent_run', { run_id: runId });

    const scheduleId = (
      await call('create_agent_schedule', {
        name: 'Energy prices',
        question: 'Energy prices this week?',
        recurrence_type: 'daily',
        recurrence_time: '09:00',
        recurrence_timezone: 'Europe/London',
        starts_at: '2026-12-02T00:00:00Z',
      })
    ).id;
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
  } finally {
    await client.close();
  }
  return [...largest.values()].sort((a, b) => b.content.tokens - a.content.tokens);
}

/** The answer budget a tool's largest answer is held to (MAX_RESULT_TOKENS' default). */
export const ANSWER_TOKEN_BUDGET = 20_000;

const n = (x: number) => x.toLocaleString('en-US');

/** One row per tool, largest content first: content and structuredContent tokens, each within the budget. */
export function largestRows(largest: readonly LargestAnswer[]) {
  return largest.map((l) => ({
    figure: `largest answer: ${l.tool} (${l.calls} call${l.calls === 1 ? '' : 's'})`,
    value: `${n(l.content.tokens)} tokens of content (${l.content.call.slice(l.tool.length + 1, 70)}); structuredContent ${n(l.structured.tokens)}`,
    target: `≤ ${n(ANSWER_TOKEN_BUDGET)} tokens`,
    met: l.content.tokens <= ANSWER_TOKEN_BUDGET && l.structured.tokens <= ANSWER_TOKEN_BUDGET,
  }));
}
