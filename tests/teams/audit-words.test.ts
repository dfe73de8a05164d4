import { describe, expect, it } from 'vitest';
import { describeAuditEvent } from '../../src/teams/audit-words.js';

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

describe('audit events in plain words (issue 14: refusals and connection changes)', () => {
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
