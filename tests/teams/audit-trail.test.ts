import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCsv, auditJson } from '../../src/audit/export.js';
import { parseAuditFilters } from '../../src/audit/filters.js';
import { exportAudit, queryAudit } from '../../src/audit/query.js';
import { loadConfig } from '../../src/config.js';
import type { OpenStore } from '../../src/db/store/index.js';
import { purgeExpired } from '../../src/housekeeping/index.js';
import { teamDb } from '../helpers/database.js';
import { teamOfThree } from '../helpers/team-domain.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

/**
 * The team audit trail (src/audit/query.ts): what a workspace sees, filters, pages, CSV and JSON
 * exports, and retention (purgeExpired, AUDIT_RETENTION_DAYS).
 */
let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

describe('audit trail', () => {
  async function seed() {
    const t = await teamOfThree(db);
    const other = await teamOfThree(db);
    const day = (d: number, h = 12) => Date.UTC(2026, 10, d, h);
    const rows = [
      {
        at: day(1),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.member.id,
        tool: 'submit_keyword_search',
        status: 'ok',
      },
      {
        at: day(2),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.member.id,
        tool: 'get_keyword_search',
        status: 'ok',
      },
      {
        at: day(3),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.admin.id,
        tool: 'submit_keyword_search',
        status: '402',
      },
      { at: day(4), kind: 'sign_in', workspaceId: null, userId: t.member.id, tool: null, status: 'ok' },
      {
        at: day(5),
        kind: 'tool_call',
        workspaceId: other.id,
        userId: other.member.id,
        tool: 'submit_keyword_search',
        status: 'ok',
      },
      { at: day(5), kind: 'sign_in', workspaceId: null, userId: other.member.id, tool: null, status: 'ok' },
    ];
    await db.orm.insert(db.t.auditEvents).values(rows);
    return { t, other };
  }
  const filters = (q: Record<string, string>) => parseAuditFilters(q).filters;

  it('shows the workspace’s rows and its members’ sign-ins, never another workspace’s', async () => {
    const { t } = await seed();
    const { rows } = await queryAudit(db, t.id, filters({ from: '2026-11-01', to: '2026-11-20' }));
    expect(rows.map((r) => [r.kind, r.tool])).toEqual([
      ['sign_in', null],
      ['tool_call', 'submit_keyword_search'],
      ['tool_call', 'get_keyword_search'],
      ['tool_call', 'submit_keyword_search'],
    ]);
    expect(rows.every((r) => r.userId !== null && [t.member.id, t.admin.id].includes(r.userId))).toBe(true);
  });

  it('filters by kind, member, tool and inclusive date range', async () => {
    const { t } = await seed();
    const range = { from: '2026-11-01', to: '2026-11-20' };
    const q = async (extra: Record<string, string>) =>
      (await queryAudit(db, t.id, filters({ ...range, ...extra }))).rows.length;
    expect(await q({ kind: 'tool_call' })).toBe(3);
    expect(await q({ member: t.admin.id })).toBe(1);
    expect(await q({ tool: 'submit_keyword_search' })).toBe(2);
    expect(await q({ tool: 'submit_keyword_search', member: t.member.id })).toBe(1);
    expect((await queryAudit(db, t.id, filters({ from: '2026-11-02', to: '2026-11-03' }))).rows).toHaveLength(
      2,
    );
    expect((await queryAudit(db, t.id, filters({ from: '2026-11-03', to: '2026-11-03' }))).rows).toHaveLength(
      1,
    );
  });

  it('reports bad filter values per field', async () => {
    const { errors, filters: f } = parseAuditFilters({
      kind: 'DROP TABLE',
      from: '2026-02-30',
      to: 'tomorrow',
      before: '12.x',
    });
    expect(Object.keys(errors).sort()).toEqual(['from', 'kind', 'position', 'to']);
    expect(f).toMatchObject({ kind: null, from: null, to: null });
    expect(parseAuditFilters({ from: '2026-11-05', to: '2026-11-01' }).errors.to).toMatch(/before/);
    expect(parseAuditFilters({ before: '1700000000000.42' }).position).toEqual({
      older: { at: 1700000000000, id: 42 },
    });
    expect(parseAuditFilters({ page: '7' }).legacyPage).toBe(7);
  });

  it('pages newest first by cursor, both ways, without overlap or gap', async () => {
    const { t } = await seed();
    const f = filters({ from: '2026-11-01', to: '2026-11-20' });
    const p1 = await queryAudit(db, t.id, f, null, 3);
    expect(p1.rows).toHaveLength(3);
    expect(p1.newer).toBeNull();
    expect(p1.older).not.toBeNull();
    const p2 = await queryAudit(db, t.id, f, { older: p1.older as { at: number; id: number } }, 3);
    expect(p2.rows).toHaveLength(1);
    expect(p2.older).toBeNull();
    const all = [...p1.rows, ...p2.rows];
    expect(all.map((r) => r.at)).toEqual([...all.map((r) => r.at)].sort((a, b) => b - a));
    expect(new Set(all.map((r) => r.id)).size).toBe(4);
    // Back from the last page: the first page's rows again, and no newer page beyond them.
    const back = await queryAudit(db, t.id, f, { newer: p2.newer as { at: number; id: number } }, 3);
    expect(back.rows.map((r) => r.id)).toEqual(p1.rows.map((r) => r.id));
    expect(back.newer).toBeNull();
  });

  it('exports CSV (RFC 4180, formula-safe) and JSON with the same filters', async () => {
    const { t } = await seed();
    await db.orm.insert(db.t.auditEvents).values({
      at: Date.UTC(2026, 10, 6),
      kind: 'team_renamed',
      workspaceId: t.id,
      userId: t.admin.id,
      detail: JSON.stringify({ to: '=HYPERLINK("x")' }),
    });
    const rows = await exportAudit(db, t.id, filters({ from: '2026-11-01', to: '2026-11-20' }));
    const csv = auditCsv(rows);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'time,id,at,kind,userId,userEmail,clientId,clientName,tool,status,durationMs,detail',
    );
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[1]).toContain('team_renamed');
    expect(lines[1]).toContain('"{""to"":""=HYPERLINK(\\""x\\"")""}"');
    expect(lines[1]).toMatch(/^2026-11-06T00:00:00\.000Z,/);
    const json = auditJson(rows);
    expect(json[0]).toMatchObject({
      kind: 'team_renamed',
      detail: { to: '=HYPERLINK("x")' },
      time: '2026-11-06T00:00:00.000Z',
    });
    expect(
      await exportAudit(db, t.id, filters({ kind: 'tool_call', from: '2026-11-01', to: '2026-11-20' })),
    ).toHaveLength(3);
    // A cell that starts like a formula is neutralised.
    expect(auditCsv([{ ...rows[0], kind: '=1+1', detail: null } as never]).split('\r\n')[1]).toContain(
      ",'=1+1,",
    );
  });
});

describe('audit retention', () => {
  it('purgeExpired deletes audit rows older than the retention and keeps the rest', async () => {
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const marker = `retention-${now}`;
    await db.orm.insert(db.t.auditEvents).values([
      { at: now - 400 * day, kind: marker },
      { at: now - 100 * day, kind: marker },
      { at: now - day, kind: marker },
    ]);
    const left = async () =>
      (await db.orm.select().from(db.t.auditEvents).where(eq(db.t.auditEvents.kind, marker))).length;
    const firstRound = await purgeExpired(db, now);
    expect(firstRound.auditEvents).toBeGreaterThanOrEqual(1);
    expect(await left()).toBe(2); // default 365 days
    await purgeExpired(db, now, { auditRetentionDays: 30 });
    expect(await left()).toBe(1);
  });

  it('AUDIT_RETENTION_DAYS defaults to 365 and refuses nonsense', async () => {
    const base = { SECRET_KEY: TEST_SECRET_KEY, DATABASE_PATH: '/tmp/unused/x.db' };
    expect(loadConfig(base).auditRetentionDays).toBe(365);
    expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: 'forever' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
