import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ROOT } from '../helpers/process.js';
import { TEST_SECRET_KEY, tempDir } from '../helpers/temp.js';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = tempDir();
  dirs.push(dir);
  return { DATABASE_PATH: join(dir.path, 'db.sqlite'), ...extra };
}

function problemsOf(e: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(e);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('has the documented defaults and runs the sandbox when no upstream is set', () => {
    const config = loadConfig(env());
    expect(config.port).toBe(8787);
    expect(config.publicUrl).toBe('http://localhost:8787');
    expect(config.resourceUrl).toBe('http://localhost:8787/mcp');
    expect(config.upstream.tokenHeader).toBe('X-SERVICE-TOKEN');
    expect(config.upstream.userHeader).toBe('X-SERVICE-USER-ID');
    expect(config.signup).toBe('open');
    expect(config.sandboxSpeed).toBe('demo');
    expect(config.sandboxMode).toBe(true);
    expect(config.mcp.pollsPerSecond).toBe(40);
  });

  it('has the numeric defaults docs/configuration.md documents, one per variable', () => {
    const table = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    // A row names one variable or several (`A`, `B`), with as many defaults (`1`, `2`).
    const documented = (name: string) => {
      for (const line of table.split('\n')) {
        const [names, defaults] = line.split(' | ');
        const at = names?.replace(/^\| /, '').split(', ').indexOf(`\`${name}\``) ?? -1;
        if (at >= 0) return Number(defaults?.split(', ')[at]?.replaceAll('`', ''));
      }
      throw new Error(`${name} is not in docs/configuration.md`);
    };
    const c = loadConfig(env());
    const actual: Record<string, number> = {
      PORT: c.port,
      DATABASE_POOL_SIZE: c.databasePoolSize,
      BODY_LIMIT_BYTES: c.bodyLimitBytes,
      SHUTDOWN_GRACE_MS: c.shutdownGraceMs,
      ACCESS_TOKEN_TTL_SECONDS: c.oauth.accessTokenTtlSeconds,
      SEARCH_MAX_WAIT_SECONDS: c.mcp.searchMaxWaitMs / 1000,
      RUN_MAX_WAIT_SECONDS: c.mcp.runMaxWaitMs / 1000,
      TASK_RETENTION_HOURS: c.mcp.taskRetentionMs / 3_600_000,
      TASK_LEASE_SECONDS: c.mcp.taskLeaseMs / 1000,
      MAX_RESULT_TOKENS: c.mcp.maxResultTokens,
      UPSTREAM_TIMEOUT_MS: c.mcp.upstreamTimeoutMs,
      UPSTREAM_POLLS_PER_SECOND: c.mcp.pollsPerSecond,
      AUDIT_RETENTION_DAYS: c.auditRetentionDays,
      HOUSEKEEPING_INTERVAL_SECONDS: c.housekeepingIntervalMs / 1000,
    };
    for (const [name, value] of Object.entries(actual))
      expect({ name, value }).toEqual({ name, value: documented(name) });
  });

  it('takes a poll budget of whole polls a second, at least one', () => {
    expect(loadConfig(env({ UPSTREAM_POLLS_PER_SECOND: '200' })).mcp.pollsPerSecond).toBe(200);
    for (const bad of ['0', '2.5', 'many'])
      expect(problemsOf(env({ UPSTREAM_POLLS_PER_SECOND: bad }))[0]).toMatch(
        /^UPSTREAM_POLLS_PER_SECOND: must be whole polls a second from 1 to 100000/,
      );
  });

  it('names PORT, the problem and the accepted form', () => {
    const problems = problemsOf(env({ PORT: 'abc' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PORT: must be a whole number from 0 to 65535 \(got "abc"\)$/);
  });

  it('reports every bad variable, one line each', () => {
    const problems = problemsOf(
      env({ PORT: '70000', SIGNUP: 'maybe', PUBLIC_URL: 'ftp://x', SANDBOX_SPEED: 'fast' }),
    );
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'PORT',
      'PUBLIC_URL',
      'SANDBOX_SPEED',
      'SIGNUP',
    ]);
  });

  it('never echoes a secret value', () => {
    const problems = problemsOf(env({ SECRET_KEY: 'hunter2-super-secret' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRET_KEY: must be 32 random bytes/);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('in production requires SECRET_KEY and an https PUBLIC_URL', () => {
    const problems = problemsOf(env({ NODE_ENV: 'production', PUBLIC_URL: 'http://mcp.example.com' }));
    expect(problems.some((p) => p.startsWith('SECRET_KEY: required'))).toBe(true);
    expect(problems.some((p) => p.startsWith('PUBLIC_URL: must be an https URL'))).toBe(true);
    const ok = loadConfig(
      env({
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://mcp.example.com/',
        SECRET_KEY: TEST_SECRET_KEY,
        UPSTREAM_SEARCH_URL: 'https://api.example.com',
        UPSTREAM_AGENT_URL: 'https://agent.example.com',
      }),
    );
    expect(ok.publicUrl).toBe('https://mcp.example.com');
    expect(ok.sandboxMode).toBe(false);
  });

  it('in production runs the sandbox only when SANDBOX=on says so', () => {
    const production = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://mcp.example.com',
      SECRET_KEY: TEST_SECRET_KEY,
    };
    expect(problemsOf(env(production))).toEqual([
      'UPSTREAM_SEARCH_URL / UPSTREAM_AGENT_URL: required when NODE_ENV=production; to run the built-in sandbox emulator instead, set SANDBOX=on',
    ]);
    expect(loadConfig(env({ ...production, SANDBOX: 'on' })).sandboxMode).toBe(true);
    // In development the sandbox stays the default without upstream hosts.
    expect(loadConfig(env()).sandboxMode).toBe(true);
    expect(
      problemsOf(
        env({
          SANDBOX: 'on',
          UPSTREAM_SEARCH_URL: 'https://a.example',
          UPSTREAM_AGENT_URL: 'https://b.example',
        }),
      ),
    ).toEqual([
      'SANDBOX: on runs the built-in sandbox, but UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL name the real service: set one or the other',
    ]);
  });

  it('refuses a PUBLIC_URL with a path: the issuer must be the bare origin', () => {
    expect(problemsOf(env({ PUBLIC_URL: 'https://example.com/mcp' }))[0]).toMatch(
      /^PUBLIC_URL: must be an origin/,
    );
  });

  it('wants both upstream URLs or neither', () => {
    expect(problemsOf(env({ UPSTREAM_SEARCH_URL: 'https://api.example.com' }))[0]).toMatch(
      /UPSTREAM_SEARCH_URL \/ UPSTREAM_AGENT_URL: set both/,
    );
    const config = loadConfig(
      env({
        UPSTREAM_SEARCH_URL: 'https://api.example.com/',
        UPSTREAM_AGENT_URL: 'https://agent.example.com',
      }),
    );
    expect(config.sandboxMode).toBe(false);
    expect(config.upstream.searchUrl).toBe('https://api.example.com');
  });

  it('in development generates the key once into the data folder (0600) and reuses it', () => {
    const e = env();
    const first = loadConfig(e);
    const keyFile = join(first.databasePath, '..', 'secret.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const second = loadConfig(e);
    expect(second.secretKeys[0]?.key.equals(first.secretKeys[0]?.key as Buffer)).toBe(true);
    expect(first.secretKeys[0]?.key).toHaveLength(32);
  });

  it('keeps a previous key for rotation, identified by key id', () => {
    const config = loadConfig(env({ SECRET_KEY: TEST_SECRET_KEY, SECRET_KEY_PREVIOUS: 'b'.repeat(64) }));
    expect(config.secretKeys).toHaveLength(2);
    expect(config.secretKeys[0]?.id).not.toBe(config.secretKeys[1]?.id);
  });
});
