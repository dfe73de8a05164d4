import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, resolveSession } from '../../src/accounts/sessions.js';
import { authenticate, createUser } from '../../src/accounts/users.js';
import { getPersonalWorkspaceId } from '../../src/accounts/workspaces.js';
import { first } from '../../src/db/store/index.js';
import { lines, runCli } from '../helpers/cli.js';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli-workspace.js';

let ws: CliWorkspace;
beforeAll(async () => {
  ws = await cliWorkspace();
});
afterAll(() => ws.close());

const PASSWORD = 'violet tractor umbrella';

describe('user create', () => {
  it('creates a user with a personal workspace from a password on stdin, without printing it', async () => {
    const r = await runCli(['user', 'create', '  Ada@Example.com ', '--password-stdin'], ws.env, {
      stdin: `${PASSWORD}\n`,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^created user ada@example\.com \(id [0-9a-f-]{36}\)\n$/);
    const user = await authenticate(ws.db, 'ada@example.com', PASSWORD);
    expect(user).not.toBeNull();
    // The trailing newline from `echo` is not part of the password.
    expect(await authenticate(ws.db, 'ada@example.com', `${PASSWORD}\n`)).toBeNull();
    expect(await getPersonalWorkspaceId(ws.db, user?.id ?? '')).not.toBeNull();
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('refuses an address that is already taken, in one line', async () => {
    const r = await runCli(['user', 'create', 'ada@example.com', '--password-stdin'], ws.env, {
      stdin: 'another good password here',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('social-intel-mcp: a user with email ada@example.com already exists\n');
  });

  it('refuses a malformed email before asking for anything', async () => {
    const r = await runCli(['user', 'create', 'not-an-email', '--password-stdin'], ws.env, {
      stdin: PASSWORD,
    });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'social-intel-mcp: invalid email "not-an-email": Enter an email address like name@example.com.',
    ]);
  });

  it('refuses a weak password with the same rule as the sign-up page', async () => {
    const r = await runCli(['user', 'create', 'bob@example.com', '--password-stdin'], ws.env, {
      stdin: 'password1234',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^social-intel-mcp: password refused: This password is too common/);
    expect(
      await first(ws.db.orm.select().from(ws.db.t.users).where(eq(ws.db.t.users.email, 'bob@example.com'))),
    ).toBeUndefined();
  });

  it('accepts --password with a warning about shell history', async () => {
    const r = await runCli(['user', 'create', 'carol@example.com', '--password', PASSWORD], ws.env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: --password leaves the password in shell history/);
    expect(await authenticate(ws.db, 'carol@example.com', PASSWORD)).not.toBeNull();
  });

  it('without a terminal or --password-stdin, says how to give the password', async () => {
    const r = await runCli(['user', 'create', 'dan@example.com'], ws.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'social-intel-mcp: no password given: pipe it with --password-stdin, or run in a terminal to be prompted\n',
    );
  });

  it('says so when --password-stdin reads nothing', async () => {
    const r = await runCli(['user', 'create', 'dan@example.com', '--password-stdin'], ws.env, { stdin: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('social-intel-mcp: --password-stdin: standard input was empty\n');
  });
});

describe('user reset-password', () => {
  it('sets the new password, ends every session of the user (not others), and audits it', async () => {
    const created = await createUser(ws.db, { email: 'erin@example.com', password: PASSWORD });
    const other = await createUser(ws.db, { email: 'fay@example.com', password: PASSWORD });
    if (!created.ok || !other.ok) throw new Error('setup');
    const s1 = await createSession(ws.db, created.user.id, 'laptop');
    const s2 = await createSession(ws.db, created.user.id, 'phone');
    const s3 = await createSession(ws.db, other.user.id, 'laptop');

    const next = 'quartz lantern meadow fig';
    const r = await runCli(['user', 'reset-password', 'ERIN@example.com', '--password-stdin'], ws.env, {
      stdin: next,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'password reset for erin@example.com; ended 2 sessions (sign in again); disconnected 0 connected apps\n',
    );
    expect(await resolveSession(ws.db, s1)).toBeNull();
    expect(await resolveSession(ws.db, s2)).toBeNull();
    expect(await resolveSession(ws.db, s3)).not.toBeNull();
    expect(await authenticate(ws.db, 'erin@example.com', PASSWORD)).toBeNull();
    expect(await authenticate(ws.db, 'erin@example.com', next)).not.toBeNull();
    const event = await first(
      ws.db.orm.select().from(ws.db.t.auditEvents).where(eq(ws.db.t.auditEvents.kind, 'password_reset')),
    );
    expect(event).toMatchObject({ userId: created.user.id, status: 'ok' });
    expect(JSON.parse(event?.detail ?? '{}')).toEqual({
      by: 'cli',
      sessionsEnded: 2,
      appsDisconnected: 0,
      appsKept: false,
    });
    expect(JSON.stringify(event)).not.toContain(next);
  });

  it('fails with one line for an unknown user', async () => {
    const r = await runCli(['user', 'reset-password', 'nobody@example.com', '--password-stdin'], ws.env, {
      stdin: PASSWORD,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('social-intel-mcp: no user with email nobody@example.com\n');
  });
});

describe('user list', () => {
  it('lists ws.db.t.users as JSON', async () => {
    const r = await runCli(['user', 'list', '--json'], ws.env);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ email: string; disabled: boolean }>;
    expect(list.map((u) => u.email)).toEqual(
      expect.arrayContaining(['ada@example.com', 'carol@example.com', 'erin@example.com', 'fay@example.com']),
    );
    expect(list.map((u) => u.email)).not.toContain('bob@example.com');
    expect(r.stdout).not.toMatch(/argon2/);
  });
});
