import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS } from '../../src/audit/filters.js';
import { describeAuditEvent, statusWords } from '../../src/teams/audit-words.js';

const row = (
  kind: string,
  detail: Record<string, unknown>,
  extra: { tool?: string; status?: string } = {},
) => ({
  kind,
  tool: extra.tool ?? null,
  status: extra.status ?? null,
  detail: JSON.stringify(detail),
});
const nameOf = (id: string) => `${id}@example.com`;

describe('audit events in plain words (refusals and connection changes)', () => {
  it('a call outside the member’s team ceiling names the permission in words, not its code', () => {
    const text = describeAuditEvent(
      row(
        'tool_call',
        { reason: 'scope_ceiling', scope: 'agent:write' },
        { tool: 'start_agent_run', status: 'refused' },
      ),
      nameOf,
    );
    expect(text).toBe(
      'Refused start_agent_run: their team settings do not allow start and change agent runs and schedules.',
    );
  });

  it('a removed member’s app knocking, a renewed connection and one device signed out are sentences', () => {
    expect(describeAuditEvent(row('access_refused', { reason: 'member_removed' }), nameOf)).toBe(
      'Refused an app of someone no longer in the team.',
    );
    expect(describeAuditEvent(row('grant_renewed', { scopes: 'searches:read' }), nameOf)).toMatch(
      /^Connected an app again/,
    );
    expect(describeAuditEvent(row('token_family_revoked', { reason: 'refresh_token_reuse' }), nameOf)).toBe(
      'Signed one device of a connected app out (refresh token reuse).',
    );
  });
});

describe('every audit event as a sentence', () => {
  const kinds = [
    ...AUDIT_KINDS,
    'grant_renewed',
    'token_family_revoked',
    'token_branch_revoked',
    'access_refused',
    'team_deleted',
    'password_reset',
    'password_changed',
    'password_change_failed',
  ];

  it('each kind reads as one sentence: no codes with underscores, no JSON, no account ids', () => {
    const detail = {
      member: 'u-123',
      role: 'admin',
      from: 'member',
      to: 'admin',
      reason: 'revoked_by_admin',
      scopes: 'searches:read agent:write',
      maxUses: 3,
      expiresAt: 7 * 86_400_000,
      name: 'Ops',
      grantsRevoked: 2,
      sessions: 4,
      apps: 2,
      appsDisconnected: 1,
    };
    for (const kind of kinds) {
      const text = describeAuditEvent(
        { kind, tool: 'get_keyword_search', status: 'ok', detail: JSON.stringify(detail), at: 0 },
        nameOf,
      );
      expect(text, kind).toMatch(/^[A-Z].*[.:]$/s);
      expect(text, kind).not.toMatch(
        /[{}]|\b[a-z]+_[a-z_]+\b(?<!get_keyword_search)|searches:read|u-123(?!@)/,
      );
    }
  });

  it('team events name people by email and say what changed', () => {
    const d = (o: Record<string, unknown>) => JSON.stringify(o);
    const say = (kind: string, detail: Record<string, unknown>, at = 0) =>
      describeAuditEvent({ kind, tool: null, status: 'ok', detail: d(detail), at }, nameOf);
    expect(say('member_role_changed', { member: 'bo', from: 'member', to: 'admin' })).toBe(
      'Changed bo@example.com’s role from member to admin.',
    );
    expect(say('member_removed', { member: 'bo', role: 'admin', grantsRevoked: 1 })).toBe(
      'Removed bo@example.com (admin) from the team; 1 connected app was disconnected.',
    );
    expect(say('invite_created', { role: 'member', maxUses: 1, expiresAt: 7 * 86_400_000 })).toBe(
      'Created an invite link to join as a member, for one person, valid 7 days.',
    );
    expect(say('grant_created', { scopes: 'searches:read searches:write' })).toBe(
      'Connected an app allowed to read searches and start searches.',
    );
    expect(say('grant_revoked', { reason: 'member_removed' })).toBe(
      'An app was disconnected (the member was removed from the team).',
    );
    expect(say('team_renamed', { from: 'A', to: 'B' })).toBe('Renamed the team from “A” to “B”.');
    expect(
      describeAuditEvent({ kind: 'tool_call', tool: 'get_run', status: '402', detail: null }, nameOf),
    ).toBe('Called get_run (failed (the api answered http 402)).');
    expect(
      describeAuditEvent(row('tool_call', { job: 'run:7', reads: 37 }, { tool: 'tasks/get' }), nameOf),
    ).toBe('Called tasks/get 37 more times that minute.');
  });

  it('statuses in words', () => {
    expect(['ok', 'refused', 'cancelled', 'invalid', 'error', '402', null].map(statusWords)).toEqual([
      'Done',
      'Refused',
      'Cancelled',
      'Invalid arguments',
      'Failed',
      'Failed (the API answered HTTP 402)',
      'Done',
    ]);
  });
});
