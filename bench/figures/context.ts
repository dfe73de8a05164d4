/**
 * Context cost: what the model that reads our answers pays for them, in tokens (OpenAI's o200k BPE,
 * from `gpt-tokenizer`, a maintained tokenizer library; other models' tokenizers land within a few
 * per cent of it on JSON and English) and bytes. Measured through the v2 SDK client against the
 * running gateway, the way a client sees each answer:
 * - tools/list: the model-visible part of each tool (name, title, description, input schema,
 *   annotations), and the whole list as sent (output schemas included); the model-visible list of a
 *   connection that chose each toolset alone, and of a read-only one;
 * - tool results: the content blocks (text, and resource links as their JSON), which every client
 *   hands to the model; `structuredContent`, which some clients hand over as well; and the whole
 *   result as JSON.
 * Deterministic (the sandbox's data is seeded from the query), so measured once, not in rounds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { request } from 'undici';
import { TOOLSETS } from '../../src/mcp/tools/toolsets.js';
import { ROOT } from '../lib/proc.js';

export interface Cost {
  tokens: number;
  bytes: number;
}

export interface ResultCost {
  name: string;
  /** Content blocks: what every client gives the model. */
  content: Cost;
  structured: Cost;
  /** The whole CallToolResult as JSON. */
  total: Cost;
}

export interface ContextCost {
  toolsListModelVisible: Cost;
  toolsListTotal: Cost;
  tools: number;
  results: ResultCost[];
  /** Bytes of the tools/list answer on the wire (2026-07-28, JSON), per Accept-Encoding; absent before. */
  toolsListWire?: Record<'identity' | 'gzip' | 'br', number>;
  /** The model-visible tools/list of a connection that chose one toolset, or read-only; absent before. */
  selections?: Array<{ name: string; tools: number; cost: Cost }>;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The tools/list answer's size as sent, for one Accept-Encoding (undici leaves bodies as sent). */
async function wireBytes(mcpUrl: string, accessToken: string, encoding: string): Promise<number> {
  const res = await request(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'accept-encoding': encoding,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
  });
  return Buffer.from(await res.body.arrayBuffer()).length;
}

type Json = Record<string, unknown>;

/** The tools a connection at `url` (a toolset or read-only variant of /mcp) lists, as sent. */
async function listAt(url: string, accessToken: string): Promise<Json[]> {
  const res = await request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
  });
  const answer = (await res.body.json()) as { result?: { tools?: Json[] } };
  if (!answer.result?.tools) throw new Error(`tools/list at ${url} answered ${res.statusCode}`);
  return answer.result.tools;
}

/** Each toolset's model-visible tools/list, and read-only's (./context.ts's rows). */
async function selectionCosts(mcpUrl: string, accessToken: string): Promise<ContextCost['selections']> {
  const variants = [
    ...TOOLSETS.map((t) => ({ name: `toolset ${t}`, url: `${mcpUrl}?toolsets=${t}` })),
    { name: 'read-only (/mcp/readonly)', url: `${mcpUrl}/readonly` },
  ];
  const out: NonNullable<ContextCost['selections']> = [];
  for (const v of variants) {
    const tools = await listAt(v.url, accessToken);
    out.push({ name: v.name, tools: tools.length, cost: cost(JSON.stringify(tools.map(modelVisible))) });
  }
  return out;
}

/** The figures of an earlier commit to compare with (`npm run bench:context -- --save-before` on it). */
export const BEFORE_FILE = join(ROOT, 'bench', 'results', 'context-before.json');

export function readBefore(): ContextCost | undefined {
  return existsSync(BEFORE_FILE) ? (JSON.parse(readFileSync(BEFORE_FILE, 'utf8')) as ContextCost) : undefined;
}

export function cost(text: string): Cost {
  return { tokens: countTokens(text), bytes: Buffer.byteLength(text, 'utf8') };
}

/** The content blocks as a model receives them: text as text, anything else as its JSON. */
export function contentText(result: Json): string {
  const blocks = (result.content ?? []) as Json[];
  return blocks.map((b) => (b.type === 'text' ? String(b.text) : JSON.stringify(b))).join('\n');
}

export function resultCost(name: string, result: Json): ResultCost {
  return {
    name,
    content: cost(contentText(result)),
    structured: cost(JSON.stringify(result.structuredContent ?? null)),
    total: cost(JSON.stringify(result)),
  };
}

/** The model-visible part of one tool definition (what a client puts in the model's tool list). */
export function modelVisible(tool: Json): Json {
  const { name, title, description, inputSchema, annotations } = tool;
  return { name, title, description, inputSchema, annotations };
}

/** Runs the measured calls against a gateway whose sandbox credential has producer permission. */
export async function measureContextCost(mcpUrl: string, accessToken: string): Promise<ContextCost> {
  const client = new Client(
    { name: 'bench-context', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const call = async (name: string, args: Json): Promise<Json> => {
      const result = (await client.callTool({ name, arguments: args })) as Json;
      if (result.isError) throw new Error(`${name} failed: ${contentText(result)}`);
      return result;
    };
    const results: ResultCost[] = [];
    const submitted = await call('submit_keyword_search', { query: 'heat pumps' });
    results.push(resultCost('submit_keyword_search', submitted));
    const searchId = (submitted.structuredContent as Json).search_id;
    results.push(resultCost('get_keyword_search', await call('get_keyword_search', { search_id: searchId })));
    results.push(
      resultCost(
        'get_keyword_search_posts_data',
        await call('get_keyword_search_posts_data', { search_id: searchId }),
      ),
    );
    results.push(
      resultCost(
        'submit_user_search',
        await call('submit_user_search', { query: 'examplenews', platform: 'twitter' }),
      ),
    );
    results.push(
      resultCost(
        'submit_expert_search',
        await call('submit_expert_search', { query: 'epidemiologists who study vaccine hesitancy' }),
      ),
    );
    const run = await call('start_agent_run', { question: 'What are people saying about heat pumps?' });
    const runId = (run.structuredContent as Json).run_id;
    results.push(resultCost('get_agent_run (completed)', await call('get_agent_run', { run_id: runId })));
    return {
      toolsListModelVisible: cost(JSON.stringify(tools.map((t) => modelVisible(t as Json)))),
      toolsListTotal: cost(JSON.stringify(tools)),
      tools: tools.length,
      results,
      toolsListWire: {
        identity: await wireBytes(mcpUrl, accessToken, 'identity'),
        gzip: await wireBytes(mcpUrl, accessToken, 'gzip'),
        br: await wireBytes(mcpUrl, accessToken, 'br'),
      },
      selections: await selectionCosts(mcpUrl, accessToken),
    };
  } finally {
    await client.close();
  }
}

/** The context budgets: tools/list ≤ 4,000 tokens, a default search ≤ 2,500, every result ≤ 25 % of before. */
export const TOOLS_LIST_TOKEN_BUDGET = 4_000;
export const SEARCH_RESULT_TOKEN_BUDGET = 2_500;
export const SHARE_OF_BEFORE = 0.25;
const SEARCH_RESULTS = new Set(['submit_keyword_search', 'get_keyword_search']);

export interface ContextRow {
  figure: string;
  value: string;
  target: string;
  met: boolean | null;
}

const n = (x: number) => x.toLocaleString('en-US');
const show = (c: Cost) => `${n(c.tokens)} tokens, ${n(c.bytes)} B`;

/** Table rows; with `before` (the same figures measured on the code before), ratios and the 25 % target. */
export function contextRows(now: ContextCost, before?: ContextCost): ContextRow[] {
  const share = (after: number, was: number | undefined) =>
    was ? ` (${Math.round((after / was) * 100)} % of ${n(was)})` : '';
  const rows: ContextRow[] = [
    {
      figure: `tools/list, model-visible (${now.tools} tools)`,
      value: `${show(now.toolsListModelVisible)}${share(now.toolsListModelVisible.tokens, before?.toolsListModelVisible.tokens)}`,
      target: `≤ ${n(TOOLS_LIST_TOKEN_BUDGET)} tokens`,
      met: now.toolsListModelVisible.tokens <= TOOLS_LIST_TOKEN_BUDGET,
    },
    {
      figure: 'tools/list, whole answer (output schemas included)',
      value: `${show(now.toolsListTotal)}${share(now.toolsListTotal.tokens, before?.toolsListTotal.tokens)}`,
      target: '(reference)',
      met: null,
    },
  ];
  if (now.toolsListWire) {
    const w = now.toolsListWire;
    rows.push({
      figure: 'tools/list on the wire (2026-07-28 JSON): identity / gzip / br',
      value: `${n(w.identity)} / ${n(w.gzip)} / ${n(w.br)} B`,
      target: '(reference)',
      met: null,
    });
  }
  for (const s of now.selections ?? []) {
    rows.push({
      figure: `tools/list, model-visible, ${s.name} (${s.tools} tools)`,
      value: show(s.cost),
      target: '(reference)',
      met: null,
    });
  }
  for (const r of now.results) {
    const was = before?.results.find((b) => b.name === r.name);
    const ratio = was ? r.content.tokens / was.content.tokens : null;
    const budget = SEARCH_RESULTS.has(r.name) ? SEARCH_RESULT_TOKEN_BUDGET : null;
    const targets = [
      ...(budget ? [`≤ ${n(budget)} tokens`] : []),
      ...(ratio !== null ? ['≤ 25 % of before'] : []),
    ];
    rows.push({
      figure: `${r.name}: content the model reads`,
      value: `${show(r.content)}${share(r.content.tokens, was?.content.tokens)}`,
      target: targets.length ? targets.join(', ') : '(reference)',
      met: targets.length
        ? (budget === null || r.content.tokens <= budget) && (ratio === null || ratio <= SHARE_OF_BEFORE)
        : null,
    });
    rows.push({
      figure: `${r.name}: structuredContent / whole result`,
      value: `${n(r.structured.tokens)} / ${n(r.total.tokens)} tokens${share(r.total.tokens, was?.total.tokens)}`,
      target: '(reference)',
      met: null,
    });
  }
  return rows;
}
