// The sandbox honours the search host contract (docs/upstream.md): keyword searches, their details and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, ISO_Z, type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { COMPACT, keywordSearch, TWITTER_COMPACT } from '../helpers/search-contract.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});

describe('keyword search resources', () => {
  it('creation response has id, query, created_at, updated_at', async () => {
    const res = await sbx.search('POST', '/api/iq/keyword_search', { body: { query: 'lantern festival' } });
    expect(res.status).toBe(201);
    expect(
      expectFields(res.body, { id: 'integer', query: 'string', created_at: 'string', updated_at: 'string' }),
    ).toEqual([]);
    expect(res.body.query).toBe('lantern festival');
    expect(res.body.created_at).toMatch(ISO_Z);
  });

  it('details carry every documented field with the documented types (finished, instant speed)', async () => {
    const { details } = await keywordSearch(sbx, {
      query: 'river cleanup',
      start_date: '2026-10-01',
      end_date: '2026-10-07',
    });
    expect(
      expectFields(details, {
        id: 'integer',
        query: 'string',
        created_at: 'string',
        updated_at: 'string',
        status: 'string',
        status_text: 'string',
        status_percentage: 'string',
        tweet_preview: 'array',
        results: 'object',
      }),
    ).toEqual([]);
    expect(details.status).toBe('finished');
    expect(details.status_percentage).toBe('100');
    const r = details.results;
    expect(
      expectFields(r, {
        breakout_moment: 'array',
        co_occurrence: 'array',
        created_at: 'string',
        id_hash256: 'string',
        indicator_of_coordination: 'object',
        interaction: 'object',
        metric: 'object',
        posts: 'object',
        query: 'string',
        sentiment: 'object',
        summary: 'object',
      }),
    ).toEqual([]);
    // HTTP-date style timestamp, e.g. "Sun, 22 Nov 2026 02:33:52 GMT".
    expect(r.created_at).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(r.query).toBe('river cleanup');
    for (const b of r.breakout_moment)
      expect(expectFields(b, { height: 'number', summary: 'string', time: 'string' })).toEqual([]);
    expect(r.co_occurrence.length).toBeGreaterThan(0);
    for (const c of r.co_occurrence) {
      expect(
        expectFields(c, { count: 'integer', name: 'string', platform: 'string', type: 'string' }),
      ).toEqual([]);
      expect(['hashtag', 'url']).toContain(c.type);
    }
    const ioc = r.indicator_of_coordination;
    expect(ioc.coordination_score).toBeGreaterThanOrEqual(0);
    expect(ioc.coordination_score).toBeLessThanOrEqual(100);
    for (const k of [
      'frequent_posters_bluesky',
      'frequent_posters_reddit',
      'frequent_posters_twitter',
      'frequent_posters_youtube',
      'twitter_new_account_percent',
    ]) {
      expect(expectFields(ioc[k], { context: 'string', verdict: 'boolean' }), k).toEqual([]);
    }
    expect(Object.keys(r.posts).sort()).toEqual([
      'bluesky',
      'reddit',
      'twitter',
      'youtube',
      'youtube_comment',
    ]);
    for (const [platform, posts] of Object.entries<Record<string, unknown>[]>(r.posts)) {
      expect(posts.length).toBeGreaterThan(0);
      for (const p of posts)
        expect(expectFields(p, platform === 'twitter' ? TWITTER_COMPACT : COMPACT), platform).toEqual([]);
    }
    expect(r.posts.twitter[0].t).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(
      expectFields(r.metric.twitter, {
        account_created_after_2021: 'integer',
        avg_post_per_user: 'number',
        percent_post_from_top_10_percent_user: 'number',
        top_10_user: 'array',
      }),
    ).toEqual([]);
    for (const platform of ['twitter', 'reddit', 'bluesky', 'youtube']) {
      expect(Number.isInteger(r.interaction[platform])).toBe(true);
      expect(['Negative', 'Mixed', 'Unknown', 'Positive', 'Neutral']).toContain(r.sentiment[platform]);
      expect(typeof r.summary[platform]).toBe('string');
    }
    for (const p of details.tweet_preview) expect(expectFields(p, COMPACT)).toEqual([]);
  });

  it('synthetic data is internally consistent and fictional', async () => {
    const { details } = await keywordSearch(sbx, {
      query: 'harbor market',
      start_date: '2026-09-01',
      end_date: '2026-09-10',
    });
    const r = details.results;
    const posts = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data`);
    for (const platform of ['twitter', 'reddit', 'bluesky', 'youtube']) {
      const mine = posts.body.posts.filter((p: { platform: string }) => p.platform === platform);
      const total = mine.reduce(
        (s: number, p: { total_interactions_count: number }) => s + p.total_interactions_count,
        0,
      );
      expect(r.interaction[platform], platform).toBe(total);
      const compactTotal = r.posts[platform].reduce((s: number, p: { i: number }) => s + p.i, 0);
      expect(compactTotal, platform).toBe(total);
      // The summary states the same classification and counts as the posts.
      expect(r.summary[platform]).toContain(
        `${r.sentiment[platform]} sentiment on ${platform}: of ${mine.length} posts`,
      );
      const positives = mine.filter((p: { sentiment: string }) => p.sentiment === 'positive').length;
      expect(r.summary[platform]).toContain(`${positives} positive`);
    }
    const authors = new Set(r.posts.twitter.map((p: { n: string }) => p.n));
    expect(r.metric.twitter.top_10_user.length).toBeGreaterThan(0);
    for (const u of r.metric.twitter.top_10_user) expect(authors.has(u)).toBe(true);
    const urls = JSON.stringify(posts.body).match(/https?:\/\/[^"\s]+/g) ?? [];
    expect(urls.length).toBeGreaterThan(10);
    for (const u of urls) expect(new URL(u).hostname).toMatch(/^example\.(com|org|net)$/);
    for (const p of posts.body.posts) {
      const t = Date.parse(`${p.created_at.replace(' ', 'T')}Z`);
      expect(t).toBeGreaterThanOrEqual(Date.parse('2026-09-01T00:00:00Z'));
      expect(t).toBeLessThan(Date.parse('2026-09-11T00:00:00Z'));
    }
  });

  it('the same query twice gives identical posts, analytics and topic trees', async () => {
    const body = {
      query: 'quiet meadow AND lantern',
      start_date: '2026-08-01',
      end_date: '2026-08-05',
      max_post: 20,
    };
    const a = await keywordSearch(sbx, body);
    const b = await keywordSearch(sbx, body);
    expect(a.details.id).not.toBe(b.details.id);
    const strip = (r: Record<string, unknown>) => ({ ...r, created_at: undefined });
    expect(strip(b.details.results)).toEqual(strip(a.details.results));
    const pa = await sbx.search('GET', `/api/iq/keyword_search/${a.details.id}/posts_data`);
    const pb = await sbx.search('GET', `/api/iq/keyword_search/${b.details.id}/posts_data`);
    expect(pb.body).toEqual(pa.body);
    expect(pa.body.posts.length).toBeGreaterThan(0);
    const other = await keywordSearch(sbx, { ...body, query: 'different words entirely' });
    expect(other.details.results.posts).not.toEqual(a.details.results.posts);
  });

  it('defaults: last 7 days, four platforms, max_post 100 (keyword); last month (user)', async () => {
    const token = await sbx.credential();
    await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'defaults' } });
    await sbx.search('POST', '/api/iq/user_search', {
      token,
      body: { query: 'defaults', platform: 'twitter' },
    });
    const rec = (await sbx.control('GET', `/credentials/${token}`)).body;
    const now = (await sbx.control('GET', '/clock')).body.now as string;
    const today = now.slice(0, 10);
    const daysAgo = (n: number) =>
      new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
    expect(rec.searches.keyword[0]).toMatchObject({
      start_date: daysAgo(7),
      end_date: today,
      platforms: ['twitter', 'reddit', 'bluesky', 'youtube'],
      max_post: 100,
    });
    const d = new Date(`${today}T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() - 1);
    expect(rec.searches.user[0].end_date).toBe(today);
    expect(rec.searches.user[0].start_date.slice(0, 7)).toBe(d.toISOString().slice(0, 7));
  });

  it('max_post caps posts per platform', async () => {
    const { details } = await keywordSearch(sbx, { query: 'cap test', max_post: 3 });
    for (const posts of Object.values<unknown[]>(details.results.posts))
      expect(posts.length).toBeLessThanOrEqual(3);
    const data = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data?platform=twitter`);
    expect(data.body.posts.length).toBe(3);
  });
});
