import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AnyClient, connectV1, connectV2, type Json, textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';
import { ROOT } from '../../helpers/process.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * Long work with clients that do not speak the tasks extension, with their default options (the v1
 * client's 60 s request time-out, which progress does not reset; mcp-remote relaying a stdio client):
 * a submit returns within its wait limit (1.5 s here, 45 s by default) with the id and the exact next
 * call, and a client that follows what the results say reaches the final result in a few calls, with
 * exactly one upstream search or run and nothing cancelled. The sandbox's clock is frozen and moved by
 * the test, so each job finishes when the scenario says. An identical submit returns the earlier work.
 */
const fx = mcpBehaviourFixture();
const { record, requests } = fx;

type Call = (name: string, args: Record<string, unknown>) => Promise<Json>;

/** The tools, arguments and sandbox-time steps that take each kind of work to its end. */
const WORK = [
  {
    label: 'a keyword search',
    name: 'submit_keyword_search',
    args: { query: 'heat pumps', platforms: ['twitter'] },
    steps: [2_000, 3_000],
    created: (r: Json) => r.searches.keyword,
  },
  {
    label: 'a user search',
    name: 'submit_user_search',
    args: { query: 'heatpumpfan', platform: 'twitter' },
    steps: [2_000, 3_000],
    created: (r: Json) => r.searches.user,
  },
  {
    label: 'an expert search',
    name: 'submit_expert_search',
    args: { query: 'heat pump engineers in Norway' },
    steps: [1_000, 3_000],
    created: (r: Json) => r.searches.expert,
  },
  {
    label: 'an agent run',
    name: 'start_agent_run',
    args: { question: 'Are heat pumps trending?' },
    steps: [8_000, 15_000],
    created: (r: Json) => r.runs,
  },
] as const;

/** The exact next call a result names: `Call <tool> with <arg> <json value> and wait true`. */
function nextCallOf(result: Json): { name: string; args: Record<string, unknown> } {
  const step = String(result.structuredContent?.next_step ?? '');
  const match = /Call (\w+) with (\w+) ("[^"]+"|\d+) and wait true/.exec(step);
  if (!match) throw new Error(`no next call in: ${step}`);
  const [, name = '', arg = '', value = ''] = match;
  return { name, args: { [arg]: JSON.parse(value), wait: true } };
}

/**
 * Submits, then does what each result says until the work is done, moving the sandbox clock one step
 * before each follow-up. Returns the results in order.
 */
async function followToTheEnd(call: Call, work: (typeof WORK)[number]): Promise<Json[]> {
  await fx.h.control('POST', '/clock', { freeze: true });
  const results = [await call(work.name, { ...work.args })];
  for (const ms of work.steps) {
    const last = results.at(-1);
    expect(last.isError, textOf(last)).toBeFalsy();
    expect(last.structuredContent.completed).toBe(false);
    const next = nextCallOf(last);
    await fx.h.control('POST', '/clock', { advance_ms: ms });
    results.push(await call(next.name, next.args));
  }
  return results;
}

/** What upstream saw of a credential: one creation, nothing cancelled. */
async function oneCreationNoCancel(upstreamToken: string, work: (typeof WORK)[number]) {
  const r = await record(upstreamToken);
  expect(work.created(r)).toHaveLength(1);
  const log = await requests(upstreamToken);
  expect(log.filter((q) => q.method === 'POST' && !q.path.endsWith('/cancel'))).toHaveLength(1);
  expect(log.some((q) => q.path.endsWith('/cancel'))).toBe(false);
  if (work.name === 'start_agent_run') expect(r.runs[0].status).toBe('completed');
}

describe.each([
  ['the v2 client', connectV2],
  ['the v1 client (default options: 60 s time-out)', connectV1],
])('%s follows the results to the end', (_label, connect) => {
  it.each(WORK)(
    '$label: one creation upstream, each call inside its limit, nothing cancelled',
    async (work) => {
      const { upstreamToken, client } = await fx.session(
        connect as (u: string, t: string) => Promise<AnyClient>,
      );
      await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
      try {
        const results = await followToTheEnd(
          (name, args) => client.callTool({ name, arguments: args }),
          work,
        );
        const last = results.at(-1);
        expect(last.isError).toBeFalsy();
        expect(last.structuredContent.completed).toBe(true);
        // The first answer already named the id the follow-ups used.
        const id = last.structuredContent.search_id ?? last.structuredContent.run_id;
        expect(textOf(results[0])).toContain(String(id));
        await oneCreationNoCancel(upstreamToken, work);
      } finally {
        await client.close();
      }
    },
  );
});

describe('an identical submit', () => {
  it('returns the earlier search, saying so and how to force a new one; force_new: true makes one', async () => {
    const { upstreamToken, client } = await fx.session(connectV2);
    const args = { query: 'solar subsidies', platforms: ['reddit', 'twitter'] };
    const first = await client.callTool({ name: 'submit_keyword_search', arguments: args });
    expect(first.structuredContent.completed).toBe(true);
    // The same after defaults: the platforms in another order, the default max_post written out.
    const again = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { ...args, platforms: ['twitter', 'reddit'], max_post: 100, detail: 'full' },
    });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent.search_id).toBe(first.structuredContent.search_id);
    expect(again.structuredContent.reused).toBe(true);
    expect(textOf(again)).toMatch(
      new RegExp(
        `^Same arguments as keyword search ${first.structuredContent.search_id}, submitted .* ago: this is that one, nothing new was spent\\. To run it again anyway, call submit_keyword_search with force_new: true\\.`,
      ),
    );
    const fresh = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { ...args, force_new: true },
    });
    expect(fresh.structuredContent.search_id).not.toBe(first.structuredContent.search_id);
    expect(fresh.structuredContent.reused).toBeUndefined();
    expect((await record(upstreamToken)).searches.keyword).toHaveLength(2);
    await client.close();
  });

  it('of eight sent at once, one creates the run and the others are answered with it', async () => {
    const { upstreamToken, client } = await fx.session(connectV2);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.callTool({ name: 'start_agent_run', arguments: { question: 'Is anyone talking about us?' } }),
      ),
    );
    expect(new Set(results.map((r) => r.structuredContent.run_id)).size).toBe(1);
    expect(results.filter((r) => r.structuredContent.reused === true)).toHaveLength(7);
    expect((await record(upstreamToken)).runs).toHaveLength(1);
    await client.close();
  });
});

/** mcp-remote as a stdio client sees it, its bearer given as a header (no browser sign-in). */
const PROXY = join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
let proxy: ChildProcessWithoutNullStreams | null = null;
const home = tempDir('sim-long-work-remote-');
afterAll(async () => {
  if (proxy && proxy.exitCode === null) {
    const exited = new Promise((resolve) => proxy?.once('exit', resolve));
    proxy.kill('SIGTERM');
    await exited;
  }
  home.remove();
});

describe('mcp-remote relaying a stdio client', () => {
  it('follows the results of an agent run to its report: one run upstream, nothing cancelled', async () => {
    const upstreamToken = await fx.h.credential({ speed: 'demo' });
    const access = await fx.h.token({ upstreamToken });
    const started = spawn(
      process.execPath,
      [
        PROXY,
        fx.h.mcpUrl,
        '--allow-http',
        '--transport',
        'http-only',
        '--header',
        `Authorization:Bearer ${access}`,
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: home.path, BROWSER: '/bin/true' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    proxy = started;
    let stdout = '';
    let stderr = '';
    started.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    started.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    let id = 0;
    const request = async (method: string, params: Json): Promise<Json> => {
      id += 1;
      started.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      const pattern = new RegExp(`^\\{.*"id":${id}[,}].*$`, 'm');
      const end = Date.now() + 30_000;
      for (;;) {
        const line = pattern.exec(stdout)?.[0];
        if (line) return JSON.parse(line);
        if (Date.now() > end || started.exitCode !== null)
          throw new Error(`no answer ${id} from mcp-remote\nstderr:\n${stderr}\nstdout:\n${stdout}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const init = await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'stdio-host', version: '1' },
    });
    expect(init.result?.serverInfo?.name).toBe('social-intel-mcp');
    started.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const work = WORK[3];
    const results = await followToTheEnd(async (name, args) => {
      const answer = await request('tools/call', { name, arguments: args });
      if (answer.error) throw new Error(JSON.stringify(answer.error));
      return answer.result;
    }, work);
    expect(results.at(-1).structuredContent.completed).toBe(true);
    expect(results.at(-1).structuredContent.status).toBe('completed');
    await oneCreationNoCancel(upstreamToken, work);
  });
});
