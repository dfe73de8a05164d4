import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelVisible } from '../../../bench/figures/context.js';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';
import { connectV1, connectV2, type Harness, type Json, startHarness } from '../../helpers/harness.js';

/**
 * Tool definitions as clients receive them: every input and output schema compiles under a
 * strict JSON Schema validator (Ajv, strict mode: unknown keywords and formats, union types, keywords
 * without their type, all refused) without a warning; no `[X, "null"]` unions; no empty schemas; and
 * the model-visible part of tools/list stays within its token budget.
 */
let h: Harness;
let tools: Json[];
beforeAll(async () => {
  h = await startHarness();
  const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken: await h.credential() }));
  tools = (await client.listTools()).tools;
  await client.close();
});
afterAll(async () => {
  await h?.close();
});

function strictAjv(warnings: string[]) {
  const log = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  const ajv = new Ajv2020({ strict: true, allErrors: true, logger: { log, warn: log, error: log } });
  addFormats.default(ajv);
  return ajv;
}

/** Every subschema, with its JSON pointer. */
function* subschemas(schema: unknown, at = '#'): Generator<[string, Json]> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  yield [at, schema];
  const s = schema as Json;
  for (const key of ['properties', 'patternProperties', '$defs']) {
    for (const [name, child] of Object.entries(s[key] ?? {}))
      yield* subschemas(child, `${at}/${key}/${name}`);
  }
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'not']) {
    if (s[key] && typeof s[key] === 'object') yield* subschemas(s[key], `${at}/${key}`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const [i, child] of (s[key] ?? []).entries()) yield* subschemas(child, `${at}/${key}/${i}`);
  }
}

describe('tool schemas', () => {
  it('every input and output schema compiles under Ajv strict mode, without warnings', () => {
    expect(tools).toHaveLength(ALL_TOOLS.length);
    const warnings: string[] = [];
    const ajv = strictAjv(warnings);
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), `${tool.name} input`).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema), `${tool.name} output`).not.toThrow();
    }
    expect(warnings).toEqual([]);
  });

  it('have no type unions and no empty schemas', () => {
    for (const tool of tools) {
      for (const which of ['inputSchema', 'outputSchema'] as const) {
        for (const [at, s] of subschemas(tool[which])) {
          const where = `${tool.name} ${which} ${at}`;
          expect(Array.isArray(s.type), where).toBe(false);
          expect(Object.keys(s).length, where).toBeGreaterThan(0);
        }
        expect(
          Object.keys(tool[which].properties ?? {}).length > 0 || tool[which] === tool.inputSchema,
          tool.name,
        ).toBe(true);
      }
    }
  });

  it('list formats, not the long patterns that spell them out', () => {
    const text = JSON.stringify(tools.map((t) => [t.inputSchema, t.outputSchema]));
    expect(text).not.toContain('"pattern"');
    expect(text).toContain('"format":"uuid"');
    expect(text).toContain('"format":"date"');
    expect(text).toContain('"format":"date-time"');
    expect(text).not.toContain('9007199254740991');
  });

  it('every argument a model could misread has a description', () => {
    // Ids, paging, free text, flags and typed values (format date-time, email, uri) whose name and
    // schema say all there is to say; every other argument needs words. update_agent_schedule's
    // settings are described once, on create_agent_schedule, but for those a model could misread.
    const selfExplaining = new Set([
      ...['search_id', 'run_id', 'schedule_id', 'page', 'offset', 'month', 'status'],
      ...['name', 'question', 'label', 'pinned', 'return_url', 'starts_at', 'ends_at'],
      ...['recurrence_day_of_month', 'notify_email', 'notify_slack_webhook', 'notify_slack_channel_id'],
    ]);
    const misreadable = new Set(['platform', 'platforms', 'max_post', 'available_credits']);
    const props = (name: string) =>
      ((tools.find((t) => t.name === name)?.inputSchema as Json)?.properties ?? {}) as Record<string, Json>;
    const onCreate = props('create_agent_schedule');
    const missing: string[] = [];
    for (const tool of tools) {
      for (const [arg, schema] of Object.entries(props(tool.name))) {
        if (schema.description || selfExplaining.has(arg)) continue;
        const describedOnCreate = tool.name === 'update_agent_schedule' && onCreate[arg]?.description;
        if (describedOnCreate && !misreadable.has(arg)) continue;
        missing.push(`${tool.name}.${arg}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the model-visible tool list is at most 4,000 tokens (o200k)', () => {
    const tokens = countTokens(JSON.stringify(tools.map(modelVisible)));
    expect(tokens).toBeLessThanOrEqual(4_000);
  });

  it('both protocol eras list the same definitions', async () => {
    const client = await connectV1(h.mcpUrl, await h.token({ upstreamToken: await h.credential() }));
    const legacy = (await client.listTools()).tools;
    await client.close();
    expect(legacy.map((t) => modelVisible(t as Json))).toEqual(tools.map(modelVisible));
  });
});
