import { Hono } from 'hono';
import { auditCsv, auditJson, exportAudit, parseAuditFilters, queryAudit } from '../../../audit/query.js';
import type { AppEnv } from '../../../http/env.js';
import { listMembers } from '../../../teams/teams.js';
import { privatePage } from '../../layout.js';
import type { TeamContext } from '../context.js';
import { AuditPage } from './page.js';

/** The workspace's audit trail (admins), filtered and paged, or exported as CSV or JSON. */
export function auditRoutes(t: TeamContext) {
  const { db, config } = t;
  const app = new Hono<AppEnv>();

  app.get('/workspaces/:id/audit', async (c) => {
    const g = await t.viewer(c, 'admin');
    if ('done' in g) return g.done;
    const { filters, errors } = parseAuditFilters(c.req.query());
    const format = c.req.query('format');
    if (format === 'csv' || format === 'json') {
      const rows = await exportAudit(db, g.ws.id, filters);
      const stamp = new Date().toISOString().slice(0, 10);
      c.header('Cache-Control', 'no-store');
      c.header('Content-Disposition', `attachment; filename="audit-${stamp}.${format}"`);
      if (format === 'csv') {
        c.header('Content-Type', 'text/csv; charset=utf-8');
        return c.body(auditCsv(rows));
      }
      return c.json({ workspace: { id: g.ws.id, name: g.ws.name }, filters, events: auditJson(rows) });
    }
    const { rows, hasMore } = await queryAudit(db, g.ws.id, filters);
    return privatePage(
      c,
      <AuditPage
        c={c}
        user={g.user}
        ws={g.ws}
        members={await listMembers(db, g.ws.id)}
        filters={filters}
        errors={errors}
        rows={rows}
        hasMore={hasMore}
        retentionDays={config.auditRetentionDays}
      />,
      Object.keys(errors).length ? 400 : 200,
    );
  });

  return app;
}
