import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliWorkspace, cliWorkspace, lines, runCli } from '../helpers/cli.js';
import { ROOT } from '../helpers/process.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

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

describe('config', () => {
  it('prints the effective configuration with every secret masked', async () => {
    const previous = 'b'.repeat(64);
    const metricsToken = 'm'.repeat(40);
    const r = await runCli(['config'], {
      ...ws.env,
      METRICS_TOKEN: metricsToken,
      SECRET_KEY_PREVIOUS: previous,
      PUBLIC_URL: 'https://mcp.example.com',
      SIGNUP: 'invite',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const config = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(config).toMatchObject({
      publicUrl: 'https://mcp.example.com',
      resourceUrl: 'https://mcp.example.com/mcp',
      databasePath: ws.env.DATABASE_PATH,
      signup: 'invite',
      upstream: { tokenHeader: 'X-SERVICE-TOKEN' },
    });
    expect(config.secretKeys).toEqual([
      { role: 'SECRET_KEY (current)', id: expect.stringMatching(/^[0-9a-f]{16}$/), key: '(set, hidden)' },
      { role: 'SECRET_KEY_PREVIOUS', id: expect.stringMatching(/^[0-9a-f]{16}$/), key: '(set, hidden)' },
    ]);
    expect(r.stdout).not.toContain(TEST_SECRET_KEY);
    expect(r.stdout).not.toContain(previous);
    // DATABASE_URL's password (the test cluster's) is masked; where it points stays readable.
    const databaseUrl = ws.env.DATABASE_URL;
    if (databaseUrl) {
      const shown = new URL(String(config.databaseUrl));
      expect(shown.password).toBe('hidden');
      expect(shown.host).toBe(new URL(databaseUrl).host);
      expect(r.stdout).not.toContain(new URL(databaseUrl).password);
    } else {
      expect(config.databaseUrl).toBeNull();
    }
    expect(config.metricsToken).toBe('(set, hidden)');
    expect(r.stdout).not.toContain(metricsToken);
    expect(r.stdout).not.toContain(Buffer.from(TEST_SECRET_KEY, 'hex').toString('base64'));
  });

  it('reports a bad variable in one line, exactly as the server would refuse it', async () => {
    const r = await runCli(['config'], { ...ws.env, PORT: 'abc' });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'social-intel-mcp: invalid configuration: PORT: must be a whole number from 0 to 65535 (got "abc")',
    ]);
  });
});

describe('help and usage', () => {
  it('every command has --help naming its options', async () => {
    const expected: Array<[string[], RegExp]> = [
      [[], /Commands:[\s\S]*user[\s\S]*grants[\s\S]*purge[\s\S]*rotate-key[\s\S]*audit[\s\S]*config/],
      [['user', 'create'], /--password-stdin/],
      [['user', 'reset-password'], /end\s+all\s+of\s+the\s+user's\s+browser\s+sessions/],
      [['grants', 'list'], /--client <client_id>/],
      [['grants', 'revoke'], /--grant <id>/],
      [['purge'], /print\s+counts/],
      [['rotate-key'], /SECRET_KEY_PREVIOUS/],
      [['audit', 'export'], /--since <date>[\s\S]*--workspace <id>/],
      [['config'], /secrets\s+masked/],
    ];
    for (const [command, pattern] of expected) {
      const r = await runCli([...command, '--help'], ws.env);
      expect(r.code, command.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: social-intel-mcp/);
      expect(r.stdout).toMatch(pattern);
    }
  });

  it('an unknown command or option fails in one line', async () => {
    const r = await runCli(['grants', 'lst'], ws.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("social-intel-mcp: unknown command 'lst' (Did you mean list?) (see --help)\n");
    const o = await runCli(['purge', '--force'], ws.env);
    expect(o.code).toBe(1);
    expect(o.stderr).toBe("social-intel-mcp: unknown option '--force' (see --help)\n");
  });

  it('the bin launcher (what `npx social-intel-mcp` runs) runs the same command line', async () => {
    const r = await runCli(['user', 'list', '--json'], ws.env, {
      script: [`${ROOT}bin/social-intel-mcp.js`],
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
