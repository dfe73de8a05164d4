import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli-workspace.js';
import { ROOT } from '../helpers/process.js';

let ws: CliWorkspace;
beforeAll(async () => {
  ws = await cliWorkspace();
});
afterAll(() => ws.close());

const T = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  await ws.db.orm.insert(ws.db.t.auditEvents).values([
    { at: T('2026-01-01T10:00:00Z'), kind: 'sign_in', workspaceId: 'w1', userId: 'u1', status: 'ok' },
    {
      at: T('2026-01-02T10:00:00Z'),
      kind: 'tool_call',
      workspaceId: 'w1',
      userId: 'u1',
      clientId: '=HYPERLINK("http://evil")',
      tool: 'keyword_search',
      status: 'ok',
      durationMs: 120,
      detail: JSON.stringify({ note: 'a, "quoted" value' }),
    },
    {
      at: T('2026-01-03T10:00:00Z'),
      kind: 'tool_call',
      workspaceId: 'w2',
      userId: 'u2',
      tool: 'x',
      status: '402',
    },
    { at: T('2026-01-04T10:00:00Z'), kind: 'grant_revoked', workspaceId: 'w1', userId: 'u1', status: 'ok' },
  ]);
});

describe('audit export', () => {
  it('writes CSV with a header, oldest first, quoted per RFC 4180 and safe to open in a spreadsheet', async () => {
    const r = await runCli(['audit', 'export'], ws.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\r\n');
    expect(rows[0]).toBe('id,at,kind,workspace_id,user_id,client_id,tool,status,duration_ms,detail');
    expect(rows[1]).toBe('1,2026-01-01T10:00:00.000Z,sign_in,w1,u1,,,ok,,');
    expect(rows[2]).toBe(
      `2,2026-01-02T10:00:00.000Z,tool_call,w1,u1,"'=HYPERLINK(""http://evil"")",keyword_search,ok,120,"{""note"":""a, \\""quoted\\"" value""}"`,
    );
    expect(rows.slice(1).filter(Boolean)).toHaveLength(4);
  });

  it('filters by --since (inclusive), --until (exclusive) and --workspace, as JSON', async () => {
    const r = await runCli(
      [
        'audit',
        'export',
        '--format',
        'json',
        '--since',
        '2026-01-02',
        '--until',
        '2026-01-04T10:00:00Z',
        '--workspace',
        'w1',
      ],
      ws.env,
    );
    expect(r.code).toBe(0);
    const events = JSON.parse(r.stdout) as Array<{ id: number; at: string; detail: unknown }>;
    expect(events.map((e) => e.id)).toEqual([2]);
    expect(events[0]?.detail).toEqual({ note: 'a, "quoted" value' });
    const since = await runCli(['audit', 'export', '--format', 'json', '--since', '2026-01-03'], ws.env);
    expect((JSON.parse(since.stdout) as Array<{ id: number }>).map((e) => e.id)).toEqual([3, 4]);
    const none = await runCli(['audit', 'export', '--format', 'json', '--workspace', 'nope'], ws.env);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('refuses a bad date, format or range in one line', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--since', 'last week'],
        'social-intel-mcp: --since: expected a date like 2026-01-31 or 2026-01-31T12:00:00Z (got "last week")\n',
      ],
      [['--format', 'xml'], 'social-intel-mcp: --format: expected csv or json (got "xml")\n'],
      [
        ['--since', '2026-02-01', '--until', '2026-01-01'],
        'social-intel-mcp: --until must be later than --since\n',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['audit', 'export', ...args], ws.env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(message);
      expect(r.stdout).toBe('');
    }
  });
});

describe('the bin launcher', () => {
  it('runs the same command line as src/cli/main.ts (what `npx social-intel-mcp` runs)', async () => {
    const r = await runCli(['user', 'list', '--json'], ws.env, {
      script: [`${ROOT}bin/social-intel-mcp.js`],
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
