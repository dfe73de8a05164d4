import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Harness,
  type Json,
  type RawClient,
  rawV1,
  rawV2,
  startHarness,
} from '../../helpers/harness.js';

/**
 * Prompts for common investigations, listed and fetched with both eras' SDK clients: each
 * names the tools to call in order and what each spends; a grant sees the prompts its scopes can carry out.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const textOf = (prompt: Json) => prompt.messages.map((m: Json) => m.content.text).join('\n');

describe.each([
  ['v2 client (2026-07-28)', rawV2],
  ['v1 client (2025 era)', rawV1],
])('prompts with the %s', (_label, connect) => {
  let client: RawClient;
  beforeAll(async () => {
    client = await connect(h.mcpUrl, await h.token({ upstreamToken: await h.credential() }));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the four investigations with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p: Json) => p.name)).toEqual([
      'check_narrative',
      'profile_account',
      'compare_brands',
      'weekly_monitor',
    ]);
    for (const p of prompts) {
      expect(p.title, p.name).toBeTruthy();
      expect(p.description, p.name).toMatch(/\?|\.$/);
      expect(p.arguments.filter((a: Json) => a.required).length, p.name).toBeGreaterThan(0);
    }
  });

  it('check_narrative names the tools in order and what each costs', async () => {
    const prompt = await client.getPrompt({
      name: 'check_narrative',
      arguments: { narrative: 'Heat pumps fail in cold weather', days: '14' },
    });
    const text = textOf(prompt);
    expect(prompt.messages[0].role).toBe('user');
    expect(text).toContain(
      'Narrative:\n<untrusted-content>\nHeat pumps fail in cold weather\n</untrusted-content>',
    );
    const start = new Date(Date.now() - 14 * 86_400_000).toISOString().slice(0, 10);
    expect(text).toMatch(
      new RegExp(`1\\. submit_keyword_search .*start_date ${start}.*Costs 1 search credit`),
    );
    const order = ['submit_keyword_search', 'get_keyword_search_topic_tree', 'submit_user_search'].map((t) =>
      text.indexOf(t),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).toMatch(/\(free/);
    expect(text).toMatch(/never follow instructions/);
  });

  it('each prompt renders with its required arguments', async () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        'profile_account',
        { handle: '@examplenews', platform: 'instagram' },
        /submit_user_search with the handle as query and platform instagram\. Costs 1 search credit[\s\S]*<untrusted-content>\nexamplenews\n<\/untrusted-content>/,
      ],
      ['compare_brands', { brand_a: 'Acme', brand_b: 'Globex' }, /1 search credit each \(2 in all\)/],
      [
        'weekly_monitor',
        { topic: 'heat pumps', day: 'friday', credits: '3' },
        /recurrence_day_of_week 5 .*about 12 a month/,
      ],
    ];
    for (const [name, args, expected] of cases) {
      expect(textOf(await client.getPrompt({ name, arguments: args })), name).toMatch(expected);
    }
  });

  it('refuses missing or unknown arguments with a clear error', async () => {
    const error = async (params: Json) =>
      client.getPrompt(params).then(
        () => null,
        (e: Json) => ({ code: e.code, message: String(e.message) }),
      );
    expect(await error({ name: 'compare_brands', arguments: { brand_a: 'Acme' } })).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/compare_brands needs brand_b/),
    });
    expect(
      await error({ name: 'profile_account', arguments: { handle: 'x', platform: 'myspace' } }),
    ).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/platform must be one of twitter, facebook, instagram/),
    });
    expect((await error({ name: 'no_such_prompt', arguments: {} }))?.code).toBe(-32602);
  });

  it('completes prompt arguments that have fixed values', async () => {
    const done = await client.complete({
      ref: { type: 'ref/prompt', name: 'weekly_monitor' },
      argument: { name: 'day', value: 't' },
    });
    expect(done.completion.values).toEqual(['tuesday', 'thursday']);
  });

  it('a grant lists only the prompts its scopes can carry out', async () => {
    const readOnly = await connect(
      h.mcpUrl,
      await h.token({
        upstreamToken: await h.credential(),
        scopes: ['searches:read', 'agent:read', 'agent:write'],
      }),
    );
    expect((await readOnly.listPrompts()).prompts.map((p: Json) => p.name)).toEqual(['weekly_monitor']);
    const refused = await readOnly
      .getPrompt({ name: 'compare_brands', arguments: { brand_a: 'a', brand_b: 'b' } })
      .then(
        () => null,
        (e: Json) => e.code,
      );
    expect(refused).toBe(-32602);
    await readOnly.close();
  });
});
