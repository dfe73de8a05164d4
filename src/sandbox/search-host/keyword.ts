import { Hono } from 'hono';
import {
  DEFAULT_KEYWORD_PLATFORMS,
  KEYWORD_WINDOW_DAYS,
  MAX_POST_DEFAULT,
  POSTS_DATA_PLATFORMS,
  SEARCH_CREDIT_COST,
  TOPIC_TREE_PLATFORMS,
} from '../constants.js';
import { firstIssue, minusDays, readJson, utcDate } from '../http.js';
import {
  postsData,
  searchCreation,
  searchDetails,
  searchSummary,
  topicTrees,
} from '../state/search-views.js';
import { createKeywordSearch, listPage, stageOf } from '../state/searches.js';
import type { Store } from '../state/store.js';
import type { SearchRecord } from '../state/types.js';
import { fail, insufficientCredits, intId, type SearchEnv, searchAuth } from './common.js';
import { keywordCreateSchema, listQuerySchema } from './schemas.js';

export function keywordRoutes(store: Store): Hono<SearchEnv> {
  const app = new Hono<SearchEnv>();
  const auth = searchAuth(store);

  app.post('/api/iq/keyword_search', auth, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return fail(c, 400, `Malformed JSON body: ${body.message}`);
    const parsed = keywordCreateSchema.safeParse(body.value);
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const now = store.now();
    const startDate = parsed.data.start_date ?? minusDays(now, KEYWORD_WINDOW_DAYS);
    const endDate = parsed.data.end_date ?? utcDate(now);
    if (startDate > endDate) return fail(c, 400, 'start_date must not be after end_date');
    const cred = c.get('cred');
    if (cred.credits < SEARCH_CREDIT_COST) return insufficientCredits(c, SEARCH_CREDIT_COST, cred.credits);
    const rec = createKeywordSearch(store, cred, c.get('userId'), {
      query: parsed.data.query,
      startDate,
      endDate,
      platforms: [...new Set(parsed.data.platforms ?? DEFAULT_KEYWORD_PLATFORMS)],
      maxPost: parsed.data.max_post ?? MAX_POST_DEFAULT,
    });
    return c.json(searchCreation(rec), 201);
  });

  app.get('/api/iq/keyword_search', auth, (c) => {
    const parsed = listQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return fail(c, 400, firstIssue(parsed.error));
    const now = store.now();
    const { items, total } = listPage(
      store.ownedBy(c.get('cred').token).keyword,
      parsed.data.page,
      (s) => stageOf(s, now).status,
      parsed.data.show,
    );
    return c.json({
      keyword_searches: items.map((s) => searchSummary(s, now)),
      page: parsed.data.page,
      total,
    });
  });

  const find = (token: string, raw: string): SearchRecord | undefined => {
    const id = intId(raw);
    const rec = id === null ? undefined : store.keywordSearches.get(id);
    return rec?.token === token ? rec : undefined;
  };

  app.get('/api/iq/keyword_search/:id', auth, (c) => {
    const rec = find(c.get('cred').token, c.req.param('id'));
    if (rec === undefined) return fail(c, 404, 'Keyword search not found');
    return c.json(searchDetails(rec, store.now()));
  });

  app.get('/api/iq/keyword_search/:id/posts_data', auth, (c) => {
    const rec = find(c.get('cred').token, c.req.param('id'));
    if (rec === undefined) return fail(c, 404, 'Keyword search not found');
    const platform = c.req.query('platform') ?? 'all';
    if (!(POSTS_DATA_PLATFORMS as readonly string[]).includes(platform)) {
      return fail(c, 400, `platform must be one of ${POSTS_DATA_PLATFORMS.join(', ')}`);
    }
    return c.json({ posts: postsData(rec, store.now(), platform) });
  });

  app.get('/api/iq/keyword_search/:id/topic_tree', auth, (c) => {
    const rec = find(c.get('cred').token, c.req.param('id'));
    if (rec === undefined) return fail(c, 404, 'Keyword search not found');
    const platform = c.req.query('platform');
    if (platform !== undefined && !(TOPIC_TREE_PLATFORMS as readonly string[]).includes(platform)) {
      return fail(c, 400, `platform must be one of ${TOPIC_TREE_PLATFORMS.join(', ')}`);
    }
    return c.json(topicTrees(rec, store.now(), platform));
  });

  return app;
}
