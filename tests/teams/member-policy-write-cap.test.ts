import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUpstreamUserId } from '../../src/accounts/credentials.js';
import type { OpenStore, Store } from '../../src/db/store/index.js';
import { CREDIT_SPENDING_TOOLS } from '../../src/mcp/tools/index.js';
import { parseMemberPolicy, setMemberPolicy } from '../../src/teams/member-policy.js';
import { listMembers } from '../../src/teams/members.js';
import {
  reserveWriteCall,
  startOfUtcMonth,
  writesThisMonth,
  writesThisMonthQuery,
} from '../../src/teams/write-cap.js';
import { teamDb } from '../helpers/database.js';
import { queryPlan } from '../helpers/query-plan.js';
import { auditKinds, teamOfThree } from '../helpers/team-domain.js';
import { ok } from '../helpers/team-fixture.js';

/**
 * A member's policy (upstream user id, scope ceiling, monthly cap) and the monthly write cap it sets:
 * who may set it, what the cap counts and refuses, and that the count is index-backed.
 */
let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

describe('member policy', () => {
  it('parses upstream id, scope ceiling and cap; all scopes ticked means no ceiling', async () => {
    expect(
      parseMemberPolicy({
        upstreamUserId: ' analyst-7 ',
        maxScopes: ['searches:read', 'agent:read'],
        monthlyWriteCap: '5',
      }),
    ).toEqual({
      ok: true,
      value: { upstreamUserId: 'analyst-7', maxScopes: 'searches:read agent:read', monthlyWriteCap: 5 },
    });
    const all = [
      'searches:read',
      'searches:write',
      'agent:read',
      'agent:write',
      'account:read',
      'account:write',
    ];
    expect(parseMemberPolicy({ upstreamUserId: '', maxScopes: all, monthlyWriteCap: '' })).toEqual({
      ok: true,
      value: { upstreamUserId: null, maxScopes: null, monthlyWriteCap: null },
    });
    const bad = parseMemberPolicy({
      upstreamUserId: 'tab\there',
      maxScopes: ['root'],
      monthlyWriteCap: '-1',
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(Object.keys(bad.errors).sort()).toEqual(['maxScopes', 'monthlyWriteCap', 'upstreamUserId']);
  });

  it('admins set it; members cannot; upstream ids stay distinct between members', async () => {
    const t = await teamOfThree(db);
    const policy = { upstreamUserId: 'analyst-7', maxScopes: ['searches:read'], monthlyWriteCap: '3' };
    expect(await setMemberPolicy(db, t.id, t.member.id, t.member.id, policy)).toMatchObject({
      ok: false,
      status: 403,
    });
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.member.id, policy));
    const row = (await listMembers(db, t.id)).find((m) => m.userId === t.member.id);
    expect(row).toMatchObject({
      upstreamUserId: 'analyst-7',
      upstreamUserIdSet: true,
      maxScopes: ['searches:read'],
      monthlyWriteCap: 3,
    });
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, { ...policy, maxScopes: [] }),
    ).toMatchObject({
      ok: false,
      status: 409,
      field: 'upstreamUserId',
    });
    // Nor may someone take another member's default id.
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, {
        upstreamUserId: defaultUpstreamUserId(t.owner.id),
        maxScopes: [],
        monthlyWriteCap: '',
      }),
    ).toMatchObject({ ok: false, status: 409 });
    expect(await auditKinds(db, t.id)).toContain('member_policy_changed');
    // Cleared: back to the stable default.
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.member.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '',
      }),
    );
    expect((await listMembers(db, t.id)).find((m) => m.userId === t.member.id)).toMatchObject({
      upstreamUserId: defaultUpstreamUserId(t.member.id),
      upstreamUserIdSet: false,
      maxScopes: [],
      monthlyWriteCap: null,
    });
  });

  it('an admin cannot change an owner’s policy', async () => {
    const t = await teamOfThree(db);
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.owner.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '0',
      }),
    ).toMatchObject({ ok: false, status: 403 });
  });
});

/** The cap check as the tool path makes it, its reservation released at once (as after a refused call). */
async function checkWriteCap(
  db: Store,
  caller: { userId: string; workspaceId: string },
  tool: string,
): Promise<string | null> {
  const outcome = await reserveWriteCall(
    db,
    caller,
    { name: tool, spendsCredits: CREDIT_SPENDING_TOOLS.includes(tool) },
    CREDIT_SPENDING_TOOLS,
  );
  if (outcome.refusal === null) await outcome.release();
  return outcome.refusal;
}

describe('monthly write cap', () => {
  async function toolCall(
    workspaceId: string,
    userId: string,
    tool: string,
    status: string,
    at = Date.now(),
  ) {
    await db.orm
      .insert(db.t.auditEvents)
      .values({ at, kind: 'tool_call', workspaceId, userId, tool, status });
  }

  it('counts accepted credit-spending calls of this UTC month in this workspace only', async () => {
    const t = await teamOfThree(db);
    const now = Date.UTC(2026, 10, 15, 12);
    await toolCall(t.id, t.member.id, 'submit_keyword_search', 'ok', now - 1000);
    await toolCall(t.id, t.member.id, 'start_agent_run', 'cancelled', now - 1000);
    await toolCall(t.id, t.member.id, 'submit_user_search', '402', now - 1000); // refused upstream
    await toolCall(t.id, t.member.id, 'submit_user_search', 'refused', now - 1000); // the cap itself
    await toolCall(t.id, t.member.id, 'get_keyword_search', 'ok', now - 1000); // a read
    await toolCall(t.id, t.member.id, 'create_agent_schedule', 'ok', startOfUtcMonth(now) - 1); // last month
    await toolCall(t.member.personalId, t.member.id, 'submit_expert_search', 'ok', now - 1000); // elsewhere
    await toolCall(t.id, t.admin.id, 'rerun_agent_run', 'ok', now - 1000); // someone else
    expect(await writesThisMonth(db, t.id, t.member.id, CREDIT_SPENDING_TOOLS, now)).toBe(2);
  });

  it('refuses with a sentence once the cap is reached; reads and uncapped members pass', async () => {
    const t = await teamOfThree(db);
    expect(
      await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'submit_keyword_search'),
    ).toBeNull();
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.member.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '1',
      }),
    );
    expect(
      await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'submit_keyword_search'),
    ).toBeNull();
    await toolCall(t.id, t.member.id, 'submit_keyword_search', 'ok');
    const refusal = await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'start_agent_run');
    expect(refusal).toMatch(
      /^Monthly limit reached: a workspace admin allows you 1 credit-spending call per month/,
    );
    expect(refusal).toContain('start_agent_run was not sent upstream');
    expect(await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'get_agent_run')).toBeNull();
    expect(await checkWriteCap(db, { userId: t.admin.id, workspaceId: t.id }, 'start_agent_run')).toBeNull();
    // A cap of 0: read-only spending.
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '0',
      }),
    );
    expect(await checkWriteCap(db, { userId: t.admin.id, workspaceId: t.id }, 'submit_user_search')).toMatch(
      /allows you 0/,
    );
  });

  it('the count query is index-backed (no full scan of the audit trail)', async () => {
    const text = await queryPlan(db, writesThisMonthQuery(db, 'w', 'u', CREDIT_SPENDING_TOOLS).toSQL());
    if (db.engine === 'sqlite') {
      expect(text).toMatch(/USING INDEX audit_user_workspace_at_idx/);
      expect(text).not.toMatch(/SCAN audit_events/);
    } else {
      // A near-empty table would be read whole anyway; with sequential scans priced out, the plan shows
      // that an index serves the query.
      expect(text).toMatch(/Index.*audit_(user_)?workspace_at_idx/);
    }
  });
});
