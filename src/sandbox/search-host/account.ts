import { Hono } from 'hono';
import { DateTime } from 'luxon';
import { iso } from '../clock.js';
import { USAGE_MONTHS } from '../constants.js';
import { firstIssue, readJson } from '../http.js';
import type { Store } from '../state/store.js';
import { usageBetween } from '../state/usage.js';
import { fail, type SearchEnv, searchAuth } from './common.js';
import { setupSchema } from './schemas.js';

export function accountRoutes(store: Store): Hono<SearchEnv> {
  const app = new Hono<SearchEnv>();
  const auth = searchAuth(store);

  // Only the token header is required here (documented).
  app.get('/api/usage', searchAuth(store, true), (c) => {
    const month = c.req.query('month');
    const now = DateTime.fromMillis(store.now(), { zone: 'utc' });
    let from: DateTime;
    let to: DateTime;
    if (month === undefined || month === '' || month === 'null') {
      from = now.startOf('month').minus({ months: USAGE_MONTHS - 1 });
      to = now.endOf('month');
    } else {
      const parsed = /^\d{4}-(0[1-9]|1[0-2])$/.test(month)
        ? DateTime.fromISO(`${month}-01`, { zone: 'utc' })
        : null;
      if (parsed === null || !parsed.isValid) return fail(c, 400, 'month must be in YYYY-MM format');
      from = parsed.startOf('month');
      to = parsed.endOf('month');
    }
    const usage = usageBetween(store.ownedBy(c.get('cred').token), from.toMillis(), to.toMillis());
    return c.json({
      // searches_count counts expert searches; the iq counts are keyword + user searches (assumed split).
      searches_count: usage.totals.expert,
      total_iq_searches_count: usage.totals.keyword + usage.totals.user,
      usage_by_user: usage.byUser.map((u) => ({
        user: u.userId,
        searches_count: u.expert,
        total_iq_searches_counts: u.keyword + u.user,
        iq_keywords_searches_count: u.keyword,
        iq_users_searches_count: u.user,
        last_search: iso(u.last),
      })),
      period_start: from.toISODate(),
      period_end: to.toISODate(),
    });
  });

  app.get('/api/setup', auth, (c) => {
    const cred = c.get('cred');
    return c.json({ return_url: cred.returnUrl, name: cred.name });
  });

  app.put('/api/setup', auth, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return fail(c, 400, `Malformed JSON body: ${body.message}`);
    const parsed = setupSchema.safeParse(body.value);
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const cred = c.get('cred');
    cred.returnUrl = parsed.data.return_url;
    if (parsed.data.name !== undefined) cred.name = parsed.data.name;
    return c.json({ return_url: cred.returnUrl, name: cred.name });
  });

  app.get('/api/iq/credits', auth, (c) => {
    // One-time sandbox grants have no limit or reset date (observed shape for one-time grants).
    return c.json({ available_credits: c.get('cred').credits, credits_limit: null, period_reset_date: null });
  });

  return app;
}
