import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialSource, errorMessage } from '../../../src/mcp/catalog/tool-errors.js';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';
import { UpstreamError, type UpstreamErrorKind } from '../../../src/upstream/errors.js';
import { connectV2, type Harness, type Json, startHarness, textOf } from '../../helpers/harness.js';

/**
 * Sentences in an error text, the way a reader counts them: upstream's quoted words count as part of
 * the sentence that quotes them, and the dots of URLs, numbers and "e.g." end nothing.
 */
function sentences(text: string): number {
  const plain = text
    .replace(/"[^"]*"/g, 'QUOTE')
    .replace(/https?:\/\/\S+?(?=[.,;:)]?(\s|$))/g, 'URL')
    .replace(/\d+\.\d+/g, 'N')
    .replace(/e\.g\./g, 'eg');
  return (plain.match(/[.!?](\s|$)/g) ?? []).length;
}

const KINDS: UpstreamErrorKind[] = [
  'bad_request',
  'unauthorized',
  'payment_required',
  'forbidden',
  'not_found',
  'unprocessable',
  'rate_limited',
  'server',
  'http',
  'timeout',
  'network',
  'malformed',
  'aborted',
];

/** The token's three origins: a workspace's linked credential, the upstream headers, stdio's environment. */
const upstreamUser = (via: 'headers' | 'stdio') =>
  ({
    kind: 'upstream',
    via,
    key: 'k',
    connectionKey: 'upstream:k',
    clientId: `upstream-${via}`,
    scopes: [],
    upstream: { token: 't', userId: 'u' },
  }) as const;
const SOURCES = [
  credentialSource(undefined, 'https://mcp.example.com', 'X-SERVICE-TOKEN'),
  credentialSource(upstreamUser('headers'), 'https://mcp.example.com', 'X-SERVICE-TOKEN'),
  credentialSource(upstreamUser('stdio'), 'https://mcp.example.com', 'X-SERVICE-TOKEN'),
];

describe('every error text is at most three sentences', () => {
  it('for every upstream failure, on every tool, with and without upstream explanations', () => {
    const details = [null, 'Run is completed. It cannot be rerun. Start a new run instead.'];
    for (const [tool, source] of ALL_TOOLS.flatMap((t) => SOURCES.map((s) => [t, s] as const))) {
      for (const kind of KINDS) {
        for (const detail of details) {
          for (const invalidFields of [
            null,
            [{ field: 'recurrence_day_of_week', message: 'Field required.' }],
          ]) {
            const error = new UpstreamError({
              kind,
              method: 'POST',
              path: '/x',
              status: 422,
              detail,
              credits: { required: 2, available: 0 },
              retryAfterMs: 30_000,
              invalidFields,
            });
            const text = errorMessage(error, tool, source);
            expect(sentences(text), `${tool.name} ${kind}: ${text}`).toBeLessThanOrEqual(3);
            expect(sentences(text), `${tool.name} ${kind}: ${text}`).toBeGreaterThanOrEqual(1);
          }
        }
      }
      expect(sentences(errorMessage(new Error('boom'), tool, source))).toBeLessThanOrEqual(3);
    }
  });

  it('a rejected token is named by where it comes from, and the fix follows', () => {
    const rejected = new UpstreamError({ kind: 'unauthorized', method: 'GET', path: '/x', status: 401 });
    const tool = ALL_TOOLS[0] as (typeof ALL_TOOLS)[number];
    expect(SOURCES.map((source) => errorMessage(rejected, tool, source))).toEqual([
      'The upstream API token linked to this workspace was rejected (401). Ask the user to re-link their API token at https://mcp.example.com/account/credentials; retrying will not help until then.',
      "The upstream API token this connection sends in X-SERVICE-TOKEN was rejected (401). Ask the user to correct it in their MCP client's configuration of this server; retrying will not help until then.",
      'The upstream API token in UPSTREAM_TOKEN was rejected (401). Ask the user to correct UPSTREAM_TOKEN where their MCP client starts this server; retrying will not help until then.',
    ]);
  });

  it('the counter counts what a reader counts', () => {
    expect(sentences('One (422): "Two. Three." Four. Five.')).toBe(2);
    expect(
      sentences('Go to https://mcp.example.com/account/credentials. Then retry in 2.5 s, e.g. now.'),
    ).toBe(2);
  });
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('upstream 422', () => {
  const weekly = {
    name: 'Weekly',
    question: 'What changed this week?',
    recurrence_type: 'weekly',
    recurrence_time: '09:00',
    recurrence_timezone: 'Europe/London',
    starts_at: '2030-01-07T00:00:00Z',
  };

  it('a rejected argument is an input error naming the argument and saying to fix it', async () => {
    const upstreamToken = await h.credential();
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
    // Weekly without a day of week: our schema lets it through (it is upstream's rule), upstream says 422.
    const r = await client.callTool({ name: 'create_agent_schedule', arguments: weekly });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toMatch(/^Invalid argument recurrence_day_of_week \(.+\): upstream refused it \(422\)\./);
    expect(text).toMatch(/Fix the argument and call create_agent_schedule again\.$/);
    expect(text).not.toMatch(/state/);
    expect(sentences(text)).toBeLessThanOrEqual(3);
    const requests = (await h.control('GET', `/credentials/${upstreamToken}/requests`)).requests as Json[];
    expect(requests.map((q) => [q.method, q.path, q.status])).toEqual([['POST', '/api/v1/schedules', 422]]);
    await client.close();
  });

  it('a refusal because of the item state stays a state error', async () => {
    const upstreamToken = await h.credential();
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
    const run = await client.callTool({ name: 'start_agent_run', arguments: { question: 'Done quickly?' } });
    const rerun = await client.callTool({
      name: 'rerun_agent_run',
      arguments: { run_id: run.structuredContent.run_id },
    });
    expect(rerun.isError).toBe(true);
    expect(textOf(rerun)).toMatch(/current state \(422\): "Run is completed and cannot be rerun"\./);
    expect(textOf(rerun)).toMatch(/do not retry unchanged/);
    expect(textOf(rerun)).not.toMatch(/Invalid argument/);
    await client.close();
  });
});
