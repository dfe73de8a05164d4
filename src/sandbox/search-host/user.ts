import { Hono } from 'hono';
import { MAX_POST_DEFAULT, SEARCH_CREDIT_COST, USER_WINDOW_MONTHS } from '../constants.js';
import { firstIssue, minusMonths, readJson, utcDate } from '../http.js';
import { postsData, searchCreation, searchDetails, searchSummary } from '../state/search-views.js';
import { createUserSearch, listPage, stageOf } from '../state/searches.js';
import type { Store } from '../state/store.js';
import type { SearchRecord } from '../state/types.js';
import { fail, insufficientCredits, intId, type SearchEnv, searchAuth } from './common.js';
import { listQuerySchema, userCreateSchema } from './schemas.js';

export function userRoutes(store: Store): Hono<SearchEnv> {
  const app = new Hono<SearchEnv>();
  const auth = searchAuth(store);

  app.post('/api/iq/user_search', auth, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return fail(c, 400, `Malformed JSON body: ${body.message}`);
    const parsed = userCreateSchema.safeParse(body.value);
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const now = store.now();
    const startDate = parsed.data.start_date ?? minusMonths(now, USER_WINDOW_MONTHS);
    const endDate = parsed.data.end_date ?? utcDate(now);
    if (startDate > endDate) return fail(c, 400, 'start_date must not be after end_date');
    const cred = c.get('cred');
    if (cred.credits < SEARCH_CREDIT_COST) return insufficientCredits(c, SEARCH_CREDIT_COST, cred.credits);
    const rec = createUserSearch(store, cred, c.get('userId'), {
      query: parsed.data.query,
      platform: parsed.data.platform,
      startDate,
      endDate,
      maxPost: parsed.data.max_post ?? MAX_POST_DEFAULT,
    });
    return c.json(searchCreation(rec), 201);
  });

  app.get('/api/iq/user_search', auth, (c) => {
    const parsed = listQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const now = store.now();
    const { items, total } = listPage(
      store.ownedBy(c.get('cred').token).user,
      parsed.data.page,
      (s) => stageOf(s, now).status,
      parsed.data.show,
    );
    return c.json({ user_searches: items.map((s) => searchSummary(s, now)), page: parsed.data.page, total });
  });

  const find = (token: string, raw: string): SearchRecord | undefined => {
    const id = intId(raw);
    const rec = id === null ? undefined : store.userSearches.get(id);
    return rec?.token === token ? rec : undefined;
  };

  app.get('/api/iq/user_search/:id', auth, (c) => {
    const rec = find(c.get('cred').token, c.req.param('id'));
    if (rec === undefined) return fail(c, 404, 'User search not found');
    return c.json(searchDetails(rec, store.now()));
  });

  app.get('/api/iq/user_search/:id/posts_data', auth, (c) => {
    const rec = find(c.get('cred').token, c.req.param('id'));
    if (rec === undefined) return fail(c, 404, 'User search not found');
    return c.json({ posts: postsData(rec, store.now(), 'all') });
  });

  return app;
}
