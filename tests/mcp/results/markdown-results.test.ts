import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPED_NOTICE as TYPED } from '../../../src/mcp/results/fence.js';
import {
  type AnyClient,
  connectV2,
  type Harness,
  type Json,
  startHarness,
  textOf,
} from '../../helpers/harness.js';

/**
 * Every result a model reads is markdown: lists of searches, runs and schedules as compact tables whose
 * rows are the structured items; topic trees as themes with weights and a few examples, no internal
 * hashes; usage and setup in words that say what each count is. Nothing in the text contradicts the
 * structuredContent it is written from, and no result ends in raw JSON.
 */
let h: Harness;
let client: AnyClient;
let upstreamToken: string;

beforeAll(async () => {
  h = await startHarness();
  upstreamToken = await h.credential({ producer: true });
  client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
});
afterAll(async () => {
  await client?.close();
  await h?.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<{ text: string; data: Json }> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, textOf(r)).toBeFalsy();
  const text = textOf(r).trimEnd();
  expect(text, name).not.toMatch(/^[{[]/m);
  return { text, data: r.structuredContent };
}

/** The rows of the first markdown table in a text, as cells. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((l) => l.startsWith('| '));
  expect(lines[1]).toMatch(/^\| ---( \| ---)* \|$/);
  return lines.slice(2).map((l) => l.slice(2, -2).split(' | '));
}

describe('markdown for every result a model reads', () => {
  let keywordId: number;

  it('search lists: a table whose rows are the listed searches', async () => {
    keywordId = (
      await call('submit_keyword_search', { query: 'heat pumps', platforms: ['twitter', 'reddit'] })
    ).data.search_id;
    await call('submit_keyword_search', { query: 'rail | strike', platforms: ['reddit'] });
    await call('submit_user_search', { query: 'examplenews', platform: 'twitter' });
    await call('submit_expert_search', { query: 'grid engineers' });
    for (const [tool, key] of [
      ['get_keyword_searches', 'keyword_searches'],
      ['get_user_searches', 'user_searches'],
      ['get_expert_searches', 'searches'],
    ]) {
      const { text, data } = await call(tool as string);
      const rows = tableRows(text);
      expect(rows.map((r) => Number(r[0]))).toEqual(data[key as string].map((s: Json) => s.id));
      for (const [i, s] of data[key as string].entries()) {
        expect(rows[i]?.[1]).toBe(s.query.replace(/\|/g, '\\|'));
        expect(rows[i]?.[2]).toBe(s.status);
      }
      expect(text.split('\n')[0]).toMatch(
        new RegExp(`^${rows.length} \\w+ search(es)? \\(page 1; ${data.total} in all\\)`),
      );
    }
  });

  it('topic trees: themes with their weights and share, a few examples cut at a word, no hashes', async () => {
    const { text, data } = await call('get_keyword_search_topic_tree', { search_id: keywordId });
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    expect(text).toContain('<untrusted-content>');
    for (const tree of data.data) {
      expect(tree.id_hash256).toMatch(/^[0-9a-f]{64}$/);
      const total = tree.children.reduce((n: number, t: Json) => n + t.value, 0);
      const heading = `${tree.platform}: "${tree.name}", ${total} posts in ${tree.children.length} themes:`;
      expect(text).toContain(heading);
      const section = text.slice(text.indexOf(heading)).split('\n\n')[0]?.split('\n') ?? [];
      for (const theme of tree.children.slice(0, 8)) {
        const line = section.find((l) => l.startsWith(`- ${theme.name}: `));
        expect(line, theme.name).toBeDefined();
        const share = Math.round((theme.value / total) * 100);
        expect(line).toMatch(
          new RegExp(`^- ${theme.name}: ${theme.value} posts? \\(${share}%\\); e\\.g\\. "`),
        );
        // Examples end at a whole word of the post, or are the whole topic name.
        for (const [, shown] of (line as string).matchAll(/"([^"]+)"/g)) {
          const cut = shown?.endsWith('…');
          const name = theme.children.find((c: Json) => c.name.startsWith(cut ? shown?.slice(0, -1) : shown));
          expect(name, shown).toBeDefined();
          if (cut) expect(name.name.charAt((shown as string).length - 1)).toMatch(/[\s.,;:!?-]/);
        }
      }
    }
  });

  it('agent runs: a table without the upstream user id when every run is the caller’s', async () => {
    await call('start_agent_run', { question: 'What about heat pumps?', available_credits: 2 });
    const { text, data } = await call('list_agent_runs');
    expect(text).not.toContain('analyst-1');
    expect(data.runs[0].service_user_id).toBe('analyst-1');
    const rows = tableRows(text);
    expect(rows.map((r) => r[0])).toEqual(data.runs.map((r: Json) => r.id));
    expect(rows.map((r) => r[4])).toEqual(data.runs.map((r: Json) => r.question));
    expect(text.split('\n')[0]).toBe(
      `Agent runs 1–${data.runs.length} of ${data.total}, newest first; get_agent_run reads one.`,
    );
  });

  it('run actions in words: update, delete', async () => {
    const id = (await call('list_agent_runs')).data.runs[0].id;
    const updated = await call('update_agent_run', { run_id: id, pinned: true, label: 'Heat pumps' });
    expect(updated.text).toBe(
      `Agent run ${id} updated: pinned, labelled as below.\n${TYPED}\n<untrusted-content>\nLabel: Heat pumps\n</untrusted-content>`,
    );
    const listed = await call('list_agent_runs');
    expect(tableRows(listed.text)[0]?.[5]).toBe('pinned, Heat pumps');
    const deleted = await call('delete_agent_run', { run_id: id });
    expect(deleted.text).toBe(`Agent run ${id} deleted: it no longer appears in lists.`);
  });

  it('schedules: what they do and when in words, their runs in a table, report previews fenced', async () => {
    const created = await call('create_agent_schedule', {
      name: 'Morning heat pumps',
      question: 'Heat pumps today?',
      recurrence_type: 'weekly',
      recurrence_day_of_week: 1,
      recurrence_time: '08:30',
      recurrence_timezone: 'Europe/London',
      starts_at: '2026-01-01T00:00:00Z',
      available_credits: 2,
    });
    expect(created.text).toMatch(
      /^Schedule [0-9a-f-]{36} created\. Runs weekly on Monday at 08:30 Europe\/London, from 2026-01-01 00:00 UTC; next run \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Each run: trend_briefing, 7d; a budget of 2 credits per run\.\n/,
    );
    expect(created.text).toContain(
      `\n${TYPED}\n<untrusted-content>\nName: Morning heat pumps\nQuestion: Heat pumps today?\n</untrusted-content>`,
    );
    const id = created.data.id;
    // A week and a day later it has run at least once.
    await h.control('POST', '/clock', { advance_ms: 8 * 86_400_000 });
    const runs = await call('list_agent_schedule_runs', { schedule_id: id });
    expect(runs.data.runs.length).toBeGreaterThan(0);
    const rows = tableRows(runs.text);
    expect(rows.map((r) => r[4])).toEqual(runs.data.runs.map((r: Json) => r.agent_run_id));
    expect(rows.map((r) => r[1])).toEqual(runs.data.runs.map((r: Json) => r.status));
    const previews = runs.data.runs.filter((r: Json) => r.agent_run?.result_preview);
    expect(previews.length).toBeGreaterThan(0);
    expect(runs.text).toMatch(/Report previews:\nThe text below was written by the upstream service/);
    for (const r of previews)
      expect(runs.text).toContain(r.agent_run.result_preview.replace(/\s+/g, ' ').slice(0, 60));
    const one = await call('get_agent_schedule', { schedule_id: id });
    expect(one.text).toContain(`Its ${one.data.recent_runs.length} latest run`);
    const listed = await call('list_agent_schedules');
    expect(tableRows(listed.text).map((r) => r[0])).toEqual(listed.data.schedules.map((s: Json) => s.id));
  });

  it('usage and setup in words that say what each count is', async () => {
    const { text, data } = await call('usage');
    const byUser = data.usage_by_user[0];
    expect(text.split('\n')[0]).toBe(
      `Searches created over the last 12 months (${data.period_start} to ${data.period_end}): ${data.searches_count} expert search${data.searches_count === 1 ? '' : 'es'} and ${data.total_iq_searches_count} keyword or user searches (${byUser.iq_keywords_searches_count} keyword, ${byUser.iq_users_searches_count} user). Agent runs are not counted here.`,
    );
    expect(tableRows(text)[0]?.[0]).toBe('analyst-1 (you)');
    expect((await call('get_integration_setup')).text).toMatch(/No webhook URL is set/);
    const set = await call('update_integration_setup', { return_url: 'https://hooks.example.com/in' });
    expect(set.text).toMatch(/^The webhook URL is now set: when a search completes/);
    expect(set.text).toMatch(
      /\n<untrusted-content>\n(Account: .*\n)?Webhook URL: https:\/\/hooks\.example\.com\/in\n<\/untrusted-content>$/,
    );
    expect(set.data.return_url).toBe('https://hooks.example.com/in');
  });

  it('experts carry the handle to follow up with', async () => {
    const r = await call('get_expert_search', {
      search_id: (await call('get_expert_searches')).data.searches[0].id,
    });
    for (const e of r.data.expert_results)
      expect(r.text).toContain(`${e.expert_name} (@${e.expert_username})`);
    expect(r.text).toContain('submit_user_search with their handle');
  });
});
