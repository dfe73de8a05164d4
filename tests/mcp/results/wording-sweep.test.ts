import { describe, expect, it } from 'vitest';
import { type Json, textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * Every tool's answers read for wording a model would take wrongly, through the real server against
 * the sandbox: each search, run and their posts, topic trees and lists while the work still runs and
 * once it finished, the schedule, run and account tools, the prompts and a search's resources. The
 * phrases and their kind: a status word after "still" ("still started"), an empty page or "last
 * page" for work still running, "0 of 0", "(all platforms)" for one account, a date and time with no
 * time zone, a prompt saying a submit waits until the search finishes, hedges the server can answer
 * ("not finished, or it searched LinkedIn only"), a singular count with a plural noun, and values
 * that leaked as code ("undefined", "NaN", "[object Object]").
 */
const fx = mcpBehaviourFixture();

interface Answer {
  call: string;
  text: string;
  /** The work the answer is about had not ended (its structuredContent says completed: false). */
  running: boolean;
}

/**
 * A date with a time (`2026-12-02 00:00`, `2026-12-02T00:00:00`) and no zone after it, in the server's
 * words: a quoted JSON value is the upstream's record as it sent it.
 */
const ZONELESS =
  /(?<!["\w])\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?![:.\d])(?!\s*(?:UTC|GMT|Z\b|[+-]\d\d:?\d\d|[A-Z][a-z]+\/[A-Za-z_]+))/;

const BAD: Array<{ kind: string; pattern: RegExp; when?: (a: Answer) => boolean }> = [
  { kind: 'a status after "still"', pattern: /\bstill (?:started|pending|finished|failed|completed)\b/i },
  { kind: 'an empty count', pattern: /\b0 of 0\b/ },
  { kind: '"(all platforms)" for one account', pattern: /User search \d+ \(all platforms\)/ },
  { kind: 'a time without its zone', pattern: ZONELESS },
  { kind: 'a hedge the server can answer', pattern: /not finished, or it searched/i },
  { kind: 'a submit said to wait until the end', pattern: /waits? until the search finishes/i },
  {
    kind: 'one, in the plural',
    pattern: /(?<![\d,.])\b1 (?:posts|searches|runs|credits|experts|platforms|days)\b/,
  },
  { kind: 'a value leaked as code', pattern: /\bundefined\b|\bNaN\b|\[object Object\]/ },
  {
    kind: 'an empty or last page for work still running',
    pattern: /Last page|no posts at offset|\bno posts\b/i,
    when: (a) => a.running,
  },
];

function offences(answers: readonly Answer[]): string[] {
  const found: string[] = [];
  for (const a of answers) {
    const words = a.text;
    for (const bad of BAD) {
      if (bad.when && !bad.when(a)) continue;
      const m = bad.pattern.exec(words);
      if (m) found.push(`${a.call}: ${bad.kind}: "${words.slice(Math.max(0, m.index - 40), m.index + 60)}"`);
    }
  }
  return found;
}

describe('the wording of every answer', () => {
  it('running and finished work, every tool, prompts and resources', async () => {
    const session = await fx.session();
    const { upstreamToken } = session;
    // Resources and prompts besides tools: the v2 client has them all.
    const client = session.client as Json;
    const answers: Answer[] = [];
    const call = async (name: string, args: Json = {}): Promise<Json> => {
      const r = await client.callTool({ name, arguments: args });
      const s = (r.structuredContent ?? {}) as Json;
      answers.push({
        call: `${name} ${JSON.stringify(args)}`,
        text: textOf(r),
        running: s.completed === false || ['pending', 'started', 'running'].includes(String(s.status)),
      });
      return s;
    };

    // Running: the realistic pace with the sandbox's clock held still.
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'realistic' });
    await fx.h.control('POST', '/clock', { freeze: true });
    const keyword = (
      await call('submit_keyword_search', { query: 'wording sweep', platforms: ['twitter', 'youtube'] })
    ).search_id;
    const user = (await call('submit_user_search', { query: 'examplenews', platform: 'twitter' })).search_id;
    const expert = (await call('submit_expert_search', { query: 'wording experts' })).search_id;
    const run = (await call('start_agent_run', { question: 'What are people saying about wording?' })).run_id;
    const reads = async () => {
      for (const detail of ['summary', 'full']) {
        await call('get_keyword_search', { search_id: keyword, detail });
        await call('get_user_search', { search_id: user, detail });
        await call('get_expert_search', { search_id: expert, detail });
        await call('get_agent_run', { run_id: run, detail });
        await call('get_keyword_search_posts_data', { search_id: keyword, detail });
        await call('get_keyword_search_posts_data', { search_id: keyword, detail, platform: 'youtube' });
        await call('get_user_search_posts_data', { search_id: user, detail });
      }
      await call('get_keyword_search_topic_tree', { search_id: keyword });
      await call('get_keyword_search_topic_tree', { search_id: keyword, platform: 'twitter' });
      await call('get_keyword_searches');
      await call('get_user_searches');
      await call('get_expert_searches');
      await call('list_agent_runs');
    };
    await reads();
    // Started, part of the preview in.
    await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
    await call('get_keyword_search', { search_id: keyword, wait: true });
    await call('get_user_search', { search_id: user, wait: true });
    await call('get_agent_run', { run_id: run, wait: true });
    await reads();
    expect(answers.filter((a) => a.running).length).toBeGreaterThan(20);

    // Finished.
    await fx.h.control('POST', '/clock', { advance_ms: 30 * 60_000 });
    await reads();
    await call('update_agent_run', { run_id: run, pinned: true, label: 'wording' });
    await call('rerun_agent_run', { run_id: run });
    await call('cancel_agent_run', { run_id: run });
    await call('delete_agent_run', { run_id: run });
    const schedule = (
      await call('create_agent_schedule', {
        name: 'Wording',
        question: 'Wording this week?',
        recurrence_type: 'weekly',
        recurrence_day_of_week: 1,
        recurrence_time: '08:30',
        recurrence_timezone: 'Europe/London',
        starts_at: '2026-12-02T00:00:00Z',
        available_credits: 2,
      })
    ).id;
    await fx.h.control('POST', '/clock', { advance_ms: 8 * 86_400_000 });
    await call('list_agent_schedules');
    await call('get_agent_schedule', { schedule_id: schedule });
    await call('list_agent_schedule_runs', { schedule_id: schedule });
    await call('update_agent_schedule', { schedule_id: schedule, recurrence_time: '09:00' });
    await call('pause_agent_schedule', { schedule_id: schedule });
    await call('resume_agent_schedule', { schedule_id: schedule });
    await call('delete_agent_schedule', { schedule_id: schedule });
    await call('usage');
    await call('get_usage_by_month', { month: '2026-11' });
    await call('get_integration_setup');
    await call('update_integration_setup', { return_url: 'https://hooks.example.com/in' });

    for (const uri of [
      `social-intel://keyword-searches/${keyword}`,
      `social-intel://keyword-searches/${keyword}/posts`,
      `social-intel://user-searches/${user}`,
    ]) {
      const read = await client.readResource({ uri });
      const text = read.contents.map((c: Json) => c.text ?? '').join('\n');
      answers.push({ call: `resources/read ${uri}`, text, running: false });
    }
    const { prompts } = await client.listPrompts();
    for (const p of prompts as Json[]) {
      const args = Object.fromEntries(
        ((p.arguments ?? []) as Json[]).filter((a) => a.required).map((a) => [a.name, 'heat pumps']),
      );
      const got = await client.getPrompt({ name: p.name, arguments: args });
      const text = (got.messages as Json[]).map((m) => m.content?.text ?? '').join('\n');
      answers.push({ call: `prompts/get ${p.name}`, text, running: false });
    }

    const tools = new Set(answers.map((a) => a.call.split(' ')[0]));
    expect(tools.size).toBeGreaterThanOrEqual(31 + 2);
    const found = offences(answers);
    expect(found, found.join('\n')).toEqual([]);
    await client.close();
  });

  it('the phrases it looks for are found where they are', () => {
    const said = (text: string, running = false) => offences([{ call: 'x', text, running }]);
    expect(said('Keyword search 4: still started (20%).')).toHaveLength(1);
    expect(said('User search 4 (all platforms): 3 posts.')).toHaveLength(1);
    expect(said('Keyword search 4 (all platforms): posts 1–20 of 64.')).toEqual([]);
    expect(said('Runs weekly, from 2026-12-02 00:00; next run 2026-12-07 08:30 UTC.')).toHaveLength(1);
    expect(said('from 2026-12-02 00:00 UTC, at 08:30 Europe/London')).toEqual([]);
    expect(said('no posts at offset 0 of 0. Last page.', true)).toHaveLength(2);
    expect(said('Last page.', false)).toEqual([]);
    expect(said('The submit waits until the search finishes.')).toHaveLength(1);
    expect(said('1 posts: twitter 1.')).toHaveLength(1);
    expect(said('11 posts, 21 runs, 1,001 posts.')).toEqual([]);
  });
});
