import { Hono, type MiddlewareHandler } from 'hono';
import { iso } from '../clock.js';
import { SEARCH_CREDIT_COST } from '../constants.js';
import { firstIssue, readJson } from '../http.js';
import { expertDetails, expertStatus, expertSummary, searchUrl } from '../state/search-views.js';
import { createExpertSearch, listPage } from '../state/searches.js';
import type { Store } from '../state/store.js';
import { fail, insufficientCredits, intId, type SearchEnv, searchAuth } from './common.js';
import { expertCreateSchema, expertListQuerySchema } from './schemas.js';

export function expertRoutes(store: Store): Hono<SearchEnv> {
  const app = new Hono<SearchEnv>();
  const auth = searchAuth(store);
  const producer: MiddlewareHandler<SearchEnv> = async (c, next) => {
    if (!c.get('cred').producer) {
      return fail(c, 403, 'Expert search requires an API key with the producer permission');
    }
    await next();
  };

  app.post('/api/search', auth, producer, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return fail(c, 400, `Malformed JSON body: ${body.message}`);
    const parsed = expertCreateSchema.safeParse(body.value);
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const cred = c.get('cred');
    if (cred.credits < SEARCH_CREDIT_COST) return insufficientCredits(c, SEARCH_CREDIT_COST, cred.credits);
    const rec = createExpertSearch(store, cred, c.get('userId'), parsed.data.query);
    return c.json(
      { id: rec.id, query: rec.query, created_at: iso(rec.createdAt), search_url: searchUrl(rec.id) },
      201,
    );
  });

  app.get('/api/search', auth, producer, (c) => {
    const parsed = expertListQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const now = store.now();
    const mine = store.ownedBy(c.get('cred').token).expert;
    const { items, total } = listPage(mine, parsed.data.page, (s) => expertStatus(s, now), parsed.data.show);
    return c.json({
      searches: items.map((s) => expertSummary(s, now)),
      page: parsed.data.page,
      total,
    });
  });

  app.get('/api/search/:id', auth, producer, (c) => {
    const id = intId(c.req.param('id'));
    const rec = id === null ? undefined : store.expertSearches.get(id);
    if (rec === undefined || rec.token !== c.get('cred').token)
      return fail(c, 404, 'Expert search not found');
    return c.json(expertDetails(rec, store.now()));
  });

  return app;
}
