import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiredSessionsBatch } from '../../src/accounts/sessions.js';
import { type AuditFilters, timeRange } from '../../src/audit/filters.js';
import { memberAccountEvents, workspaceEvents } from '../../src/audit/query.js';
import { oldAuditBatch } from '../../src/audit/retention.js';
import { type Engine, type Store, statementRows } from '../../src/db/store/index.js';
import { expiredDecisionsBatch } from '../../src/oauth/decisions.js';
import {
  expiredClientsWindow,
  expiredCodesBatch,
  expiredTokensBatch,
  idleClients,
  tokenlessGrants,
} from '../../src/oauth/purge.js';
import { queryPlan } from '../helpers/query-plan.js';
import { ENGINES, migratedTestStore, type TestStore } from '../helpers/stores.js';

/**
 * The plans of the queries whose cost must follow what they return, not the table (a year of use
 * holds millions of audit events and tokens): each is a range of the index named, never a scan of the
 * table, and the audit pages read their index in order (no sort of a team's every event). On
 * PostgreSQL sequential scans are priced out (tests/helpers/query-plan.ts), so the plan shows which
 * index can serve the query, and "Index Cond" that it is read as a range rather than whole.
 */
const NONE: AuditFilters = { kind: null, userId: null, tool: null, from: null, to: null };
const KEY = { at: 1_790_000_000_000, id: 4_000_000 };
const NOW = 1_790_000_000_000;
/** A day the PostgreSQL events below fall on. */
const DAY = new Date(NOW - 50_000_000).toISOString().slice(0, 10);

function expectRange(plan: string, engine: Engine, table: string, index: string) {
  if (engine === 'sqlite') {
    expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX ${index} \\(`));
    expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b`));
  } else {
    expect(plan).toMatch(
      new RegExp(
        `(Scan( Backward)? using ${index} on ${table}|Bitmap Index Scan on ${index})[^\\n]*\\n\\s+Index Cond`,
      ),
    );
    expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
  }
}

function expectNoSort(plan: string, engine: Engine) {
  expect(plan).not.toMatch(engine === 'sqlite' ? /USE TEMP B-TREE FOR ORDER BY/ : /Sort/);
}

/**
 * SQLite's statistics of the large bench database (`npm run bench:large`), as the gateway's `PRAGMA optimize` gathers them (sampled: src/db/client.ts):
 * with them the planner plans a test table as it plans a year of use (https://sqlite.org/fileformat2.html#stat1tab).
 */
const LARGE_STAT1: [string, string, string][] = [
  ['audit_events', 'audit_at_idx', '5000000 1 1'],
  ['audit_events', 'audit_user_workspace_at_idx', '5000000 401 134 1 1'],
  ['audit_events', 'audit_workspace_at_idx', '5000000 77 1 1'],
  ['audit_events', 'audit_workspace_kind_at_idx', '5000000 77 77 1 1'],
  ['audit_events', 'audit_workspace_tool_at_idx', '5000000 77 8 1 1'],
  ['oauth_clients', 'clients_expires_idx', '50000 1 1'],
  ['oauth_clients', 'sqlite_autoindex_oauth_clients_1', '50000 1'],
  ['oauth_codes', 'codes_expires_idx', '20000 1'],
  ['oauth_codes', 'sqlite_autoindex_oauth_codes_1', '20000 1'],
  ['oauth_decisions', 'decisions_expires_idx', '20000 1'],
  ['oauth_decisions', 'sqlite_autoindex_oauth_decisions_1', '20000 1'],
  ['oauth_grants', 'grants_client_idx', '1000000 26'],
  ['oauth_grants', 'grants_live_user_client_workspace_idx', '990058 10 1 1'],
  ['oauth_grants', 'grants_user_idx', '1000000 10'],
  ['oauth_grants', 'grants_workspace_idx', '1000000 5'],
  ['oauth_grants', 'sqlite_autoindex_oauth_grants_1', '1000000 1'],
  ['oauth_tokens', 'sqlite_autoindex_oauth_tokens_1', '2200000 1'],
  ['oauth_tokens', 'tokens_expires_idx', '2200000 3'],
  ['oauth_tokens', 'tokens_family_idx', '2200000 3'],
  ['oauth_tokens', 'tokens_grant_idx', '2200000 3'],
  ['oauth_tokens', 'tokens_revoked_idx', '21845 3'],
  ['sessions', 'sessions_expires_idx', '150000 1'],
  ['sessions', 'sessions_user_idx', '150000 2'],
  ['sessions', 'sqlite_autoindex_sessions_1', '150000 1'],
  ['workspace_members', 'members_user_idx', '200000 2'],
  ['workspace_members', 'sqlite_autoindex_workspace_members_1', '200000 1 1'],
];

/**
 * Gives the planner the statistics of a large database. SQLite: LARGE_STAT1, loaded by ANALYZE of the
 * schema. PostgreSQL: a team with 200 of 5,000 people, 100,000 events of which a tenth are the team's
 * and a twelfth sign-ins, 20,000 grants with 44,000 tokens, 1,000 clients, then ANALYZE (its
 * statistics cannot be written by hand).
 */
async function largeStatistics(store: Store): Promise<void> {
  if (store.engine === 'sqlite') {
    await statementRows(store, sql`ANALYZE`);
    await statementRows(store, sql`DELETE FROM sqlite_stat1`);
    for (const [tbl, idx, stat] of LARGE_STAT1) {
      await statementRows(
        store,
        sql`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (${tbl}, ${idx}, ${stat})`,
      );
    }
    await statementRows(store, sql`ANALYZE sqlite_schema`);
    return;
  }
  await statementRows(
    store,
    sql`INSERT INTO users (id, email, password_hash, created_at, updated_at)
        SELECT 'u' || i, 'u' || i || '@example.com', 'x', 0, 0 FROM generate_series(1, 5000) i`,
  );
  await statementRows(
    store,
    sql`INSERT INTO workspaces (id, name, kind, created_at, updated_at) VALUES ('w', 'Team', 'team', 0, 0)`,
  );
  await statementRows(
    store,
    sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
        SELECT 'w', 'u' || i, 'member', 0 FROM generate_series(1, 200) i`,
  );
  await statementRows(
    store,
    sql`INSERT INTO audit_events (at, kind, workspace_id, user_id, tool, status)
        SELECT ${NOW}::bigint - 100000000 + i * 1000,
               CASE WHEN i % 12 = 0 THEN 'sign_in' WHEN i % 997 = 0 THEN 'member_role_changed' ELSE 'tool_call' END,
               CASE WHEN i % 12 = 0 THEN NULL WHEN i % 10 = 1 THEN 'w' ELSE 'p' || (i % 5000) END,
               'u' || (i % 5000),
               CASE WHEN i % 12 = 0 OR i % 997 = 0 THEN NULL ELSE 'tool_' || (i % 12) END,
               'ok'
        FROM generate_series(1, 100000) i`,
  );
  await statementRows(
    store,
    sql`INSERT INTO oauth_grants (id, user_id, workspace_id, client_id, scopes, resource, created_at, revoked_at)
        SELECT 'g' || i, 'u' || (i % 5000 + 1), 'w', 'c' || (i % 1000), 's', 'r', i, CASE WHEN i > 5000 THEN i END
        FROM generate_series(1, 20000) i`,
  );
  await statementRows(
    store,
    sql`INSERT INTO oauth_tokens (token_hash, grant_id, family_id, kind, created_at, expires_at, revoked_at)
        SELECT 't' || i, 'g' || (i % 20000 + 1), 'f' || (i % 20000), 'access', i, ${NOW}::bigint + i,
               CASE WHEN i % 100 = 0 THEN i END
        FROM generate_series(1, 44000) i`,
  );
  await statementRows(
    store,
    sql`INSERT INTO oauth_clients (id, kind, token_endpoint_auth_method, redirect_uris, grant_types, response_types,
                                   application_type, metadata, created_at, last_used_at, expires_at)
        SELECT 'c' || i, 'dcr', 'none', '[]', '[]', '[]', 'native', '{}', 0, 0, ${NOW}::bigint + i * 1000
        FROM generate_series(1, 1000) i`,
  );
  await statementRows(store, sql`ANALYZE`);
}

describe.each(ENGINES)('query plans on %s', (engine) => {
  let ctx: TestStore;
  const plan = (query: { toSQL(): { sql: string; params: unknown[] } }) =>
    queryPlan(ctx.store, query.toSQL());
  beforeAll(async () => {
    ctx = await migratedTestStore(engine);
    await largeStatistics(ctx.store);
  });
  afterAll(() => ctx.cleanup());

  describe('the team audit trail', () => {
    const page = (f: Partial<AuditFilters>, key: typeof KEY | null = null) =>
      plan(workspaceEvents(ctx.store, 'w', { ...NONE, ...f }, { direction: 'older', key, limit: 51 }));

    it('the first page and a deep one read (workspace_id, at, id) in order from the cursor', async () => {
      for (const text of [await page({}), await page({}, KEY)]) {
        expectRange(text, engine, 'audit_events', 'audit_workspace_at_idx');
        expectNoSort(text, engine);
      }
    });

    it('each filter has its index, read in order: kind, tool, member, a date range', async () => {
      const cases: [Partial<AuditFilters>, string][] = [
        [{ kind: 'member_role_changed' }, 'audit_workspace_kind_at_idx'],
        [{ tool: 'create_schedule' }, 'audit_workspace_tool_at_idx'],
        [{ userId: 'u' }, 'audit_user_workspace_at_idx'],
        // PostgreSQL may walk the day's range of the time index instead when, as here, the team holds a
        // tenth of all events (what its statistics say is cheaper); either is a range of one day.
        [
          { from: DAY, to: DAY },
          engine === 'sqlite' ? 'audit_workspace_at_idx' : 'audit_(workspace_)?at_idx',
        ],
      ];
      for (const [filter, index] of cases) {
        const text = await page(filter, KEY);
        expectRange(text, engine, 'audit_events', index);
        // PostgreSQL may sort the few rows a rare value has rather than read the index backwards.
        if (engine === 'sqlite') expectNoSort(text, engine);
      }
      expect(timeRange({ ...NONE, from: '2026-08-01', to: '2026-08-01' })).toEqual({
        from: Date.UTC(2026, 7, 1),
        to: Date.UTC(2026, 7, 2),
      });
    });

    it("the members' account events are found through an index, never by reading every event", async () => {
      for (const f of [NONE, { ...NONE, kind: 'sign_in' }]) {
        const query = memberAccountEvents(
          ctx.store,
          'w',
          f,
          { direction: 'older', key: KEY, limit: 51 },
          null,
        );
        if (!query) throw new Error('expected a query');
        const text = await plan(query);
        if (engine === 'sqlite') {
          // Member by member: the team's members first, then each one's range.
          expect(text.split('\n')[0]).toMatch(/SEARCH workspace_members/);
          expectRange(text, engine, 'audit_events', 'audit_user_workspace_at_idx');
        } else {
          // Per member or in time order, as its statistics say is cheaper: either way a range of an
          // index over the events without a workspace, not the time index filtered row by row.
          expect(text).toMatch(/Index Cond: \([^\n]*workspace_id IS NULL/);
          expect(text).not.toMatch(/Seq Scan on audit_events|using audit_at_idx/);
        }
      }
      expect(
        memberAccountEvents(
          ctx.store,
          'w',
          { ...NONE, tool: 'x' },
          { direction: 'older', key: null, limit: 51 },
        ),
      ).toBeNull();
      expect(
        memberAccountEvents(
          ctx.store,
          'w',
          { ...NONE, kind: 'tool_call' },
          { direction: 'older', key: null, limit: 51 },
        ),
      ).toBeNull();
    });
  });

  describe('housekeeping batches', () => {
    it('tokens: expired and revoked each a range of its own index', async () => {
      expectRange(
        await plan(expiredTokensBatch(ctx.store, 'expired', NOW, 500)),
        engine,
        'oauth_tokens',
        'tokens_expires_idx',
      );
      expectRange(
        await plan(expiredTokensBatch(ctx.store, 'revoked', NOW, 500)),
        engine,
        'oauth_tokens',
        'tokens_revoked_idx',
      );
    });

    it('grants left without a token: by primary key, the anti-join through tokens_grant_idx', async () => {
      const text = await plan(tokenlessGrants(ctx.store, ['g1', 'g2'], NOW));
      expectRange(text, engine, 'oauth_tokens', 'tokens_grant_idx');
      expect(text).not.toMatch(engine === 'sqlite' ? /SCAN oauth_grants\b/ : /Seq Scan on oauth_grants\b/);
      // NOT IN (subquery) became a plan that re-read every token per grant on PostgreSQL.
      expect(text).not.toMatch(/SubPlan|LIST SUBQUERY/);
    });

    it('idle clients: expired ones in key order, each checked through grants_client_idx', async () => {
      const window = await plan(expiredClientsWindow(ctx.store, NOW, { expiresAt: NOW - 1, id: 'c' }, 500));
      expectRange(window, engine, 'oauth_clients', 'clients_expires_idx');
      expectNoSort(window, engine);
      expectRange(
        await plan(idleClients(ctx.store, ['c1', 'c2'], NOW)),
        engine,
        'oauth_grants',
        'grants_client_idx',
      );
    });

    it('codes, consent decisions, sessions and old audit rows: a range of their expiry index', async () => {
      expectRange(
        await plan(expiredCodesBatch(ctx.store, NOW, 500)),
        engine,
        'oauth_codes',
        'codes_expires_idx',
      );
      expectRange(
        await plan(expiredDecisionsBatch(ctx.store, NOW, 500)),
        engine,
        'oauth_decisions',
        'decisions_expires_idx',
      );
      expectRange(
        await plan(expiredSessionsBatch(ctx.store, NOW, 500)),
        engine,
        'sessions',
        'sessions_expires_idx',
      );
      expectRange(await plan(oldAuditBatch(ctx.store, NOW, 500)), engine, 'audit_events', 'audit_at_idx');
    });
  });
});
