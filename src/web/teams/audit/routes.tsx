import { Hono } from 'hono';
import { auditExportStream } from '../../../audit/export.js';
import { parseAuditFilters } from '../../../audit/filters.js';
import { queryAudit } from '../../../audit/query.js';
import type { AppEnv } from '../../../http/env.js';
import { memberEmails } from '../../../teams/member-emails.js';
import { privatePage } from '../../layout.js';
import type { TeamContext } from '../context.js';
import { teamPath } from '../frame.js';
import { AuditPage, auditQuery } from './page.js';

/** The workspace's audit trail (admins), filtered and paged, or exported as CSV or JSON. */
export function auditRoutes(t: TeamContext) {
  const { db, config } = t;
  const app = new Hono<AppEnv>();

  app.get('/workspaces/:id/audit', async (c) => {
    const g = await t.viewer(c, 'admin');
    if ('done' in g) return g.done;
    const { filters, position, legacyPage, errors } = parseAuditFilters(c.req.query());
    const format = c.req.query('format');
    if (format === 'csv' || format === 'json') {
      const stamp = new Date().toISOString().slice(0, 10);
      c.header('Cache-Control', 'no-store');
      c.header('Content-Disposition', `attachment; filename="audit-${stamp}.${format}"`);
      c.header(
        'Content-Type',
        format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      );
      return c.body(auditExportStream(db, { id: g.ws.id, name: g.ws.name }, filters, format));
    }
    // A page number is from a link made before pages were cursors: numbers counted from the newest
    // event shifted as events arrived anyway, so it leads to the newest page of the same filters.
    if (legacyPage !== null && legacyPage > 1) {
      return c.redirect(`${teamPath(g.ws, '/audit')}${auditQuery(filters, {})}`, 302);
    }
    const page = await queryAudit(db, g.ws.id, filters, position);
    return privatePage(
      c,
      <AuditPage
        c={c}
        user={g.user}
        ws={g.ws}
        members={await memberEmails(db, g.ws.id)}
        filters={filters}
        errors={errors}
        page={page}
        retentionDays={config.auditRetentionDays}
      />,
      Object.keys(errors).length ? 400 : 200,
    );
  });

  return app;
}
