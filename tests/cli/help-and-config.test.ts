import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lines, runCli } from '../helpers/cli.js';
import { TEST_SECRET_KEY, tempDir } from '../helpers/temp.js';

/**
 * The command line's own surface, before any database is opened: help, usage errors and the
 * configuration it prints (secrets masked). The commands that work on a database are tested in their
 * own files on both engines.
 */
const dir = tempDir('sim-cli-');
const env = { DATABASE_PATH: join(dir.path, 'cli.db'), SECRET_KEY: TEST_SECRET_KEY };
afterAll(() => dir.remove());

describe('config', () => {
  it('prints the effective configuration with every secret masked', async () => {
    const previous = 'b'.repeat(64);
    const metricsToken = 'm'.repeat(40);
    const r = await runCli(['config'], {
      ...env,
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
      databasePath: env.DATABASE_PATH,
      signup: 'invite',
      upstream: { tokenHeader: 'X-SERVICE-TOKEN' },
    });
    expect(config.secretKeys).toEqual([
      { role: 'SECRET_KEY (current)', id: expect.stringMatching(/^[0-9a-f]{16}$/), key: '(set, hidden)' },
      { role: 'SECRET_KEY_PREVIOUS', id: expect.stringMatching(/^[0-9a-f]{16}$/), key: '(set, hidden)' },
    ]);
    expect(r.stdout).not.toContain(TEST_SECRET_KEY);
    expect(r.stdout).not.toContain(previous);
    expect(config.databaseUrl).toBeNull();
    expect(config.metricsToken).toBe('(set, hidden)');
    expect(r.stdout).not.toContain(metricsToken);
    expect(r.stdout).not.toContain(Buffer.from(TEST_SECRET_KEY, 'hex').toString('base64'));
  });

  it('masks the password of DATABASE_URL and keeps where it points', async () => {
    const password = 'p'.repeat(24);
    const databaseUrl = `postgres://gateway:${password}@db.example.com:5432/gateway`;
    const r = await runCli(['config'], { ...env, DATABASE_URL: databaseUrl });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const shown = new URL(String((JSON.parse(r.stdout) as Record<string, unknown>).databaseUrl));
    expect(shown.password).toBe('hidden');
    expect(shown.host).toBe('db.example.com:5432');
    expect(r.stdout).not.toContain(password);
  });

  it('reports a bad variable in one line, exactly as the server would refuse it', async () => {
    const r = await runCli(['config'], { ...env, PORT: 'abc' });
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
      const r = await runCli([...command, '--help'], env);
      expect(r.code, command.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: social-intel-mcp/);
      expect(r.stdout).toMatch(pattern);
    }
  });

  it('an unknown command or option fails in one line', async () => {
    const r = await runCli(['grants', 'lst'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("social-intel-mcp: unknown command 'lst' (Did you mean list?) (see --help)\n");
    const o = await runCli(['purge', '--force'], env);
    expect(o.code).toBe(1);
    expect(o.stderr).toBe("social-intel-mcp: unknown option '--force' (see --help)\n");
  });
});
