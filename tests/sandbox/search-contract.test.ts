// The sandbox honours the search host contract (docs/upstream.md): user and expert searches, usage, setup and
// credits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, ISO_Z, type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { COMMON_POST } from '../helpers/search-contract.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});

describe('user search resources', () => {
  it('twitter user search: details with platform and full results', async () => {
    const created = await sbx.search('POST', '/api/iq/user_search', {
      body: { query: '@pebble_orchard', platform: 'twitter' },
    });
    expect(created.status).toBe(201);
    expect(
      expectFields(created.body, {
        id: 'integer',
        query: 'string',
        created_at: 'string',
        updated_at: 'string',
      }),
    ).toEqual([]);
    const d = (await sbx.search('GET', `/api/iq/user_search/${created.body.id}`)).body;
    expect(d.platform).toBe('twitter');
    expect(d.status).toBe('finished');
    expect(typeof d.status_percentage).toBe('string');
    const r = d.results;
    expect(
      expectFields(r, {
        account_age_in_days: 'integer',
        account_creation_time: 'string',
        account_type: 'string',
        ai_summary: 'string',
        avg_tweets_per_day: 'number',
        avg_tweets_per_month: 'number',
        collection_start_date: 'string',
        collection_end_date: 'string',
        country_code: 'string',
        country_name: 'string',
        duplicate_count: 'object',
        duplicate_index: 'array',
        engagement_rate: 'number',
        freq_quote_who: 'object',
        freq_reply_who: 'object',
        freq_retweet_who: 'object',
        hashtag_only_originals: 'object',
        hashtag_only_originals_num: 'integer',
        hashtag_only_originals_pct: 'number',
        hashtag_only_quote_tweets: 'object',
        hashtag_only_replies: 'object',
        hashtag_only_retweets_pct: 'number',
        url_only_originals_domain: 'object',
        url_only_originals_url: 'object',
        url_only_originals_num: 'integer',
        url_only_retweets_pct: 'number',
        id_hash256: 'string',
        lang: 'object',
        largest_time_gap: 'array',
        name: 'string',
        num_followers: 'integer',
        num_following: 'integer',
        num_originals: 'integer',
        num_quotes: 'integer',
        num_replies: 'integer',
        num_retweets: 'integer',
        pct_originals: 'number',
        pct_quotes: 'number',
        pct_replies: 'number',
        pct_retweets: 'number',
        outlier_like: 'boolean',
        outlier_like_index: 'array',
        outlier_rt: 'boolean',
        outlier_rt_index: 'array',
        profile_image_url_https: 'string',
        recent_tweet_result_url: 'string',
        top_5_domains: 'object',
        top_5_hashtags: 'object',
        top_5_urls: 'object',
        total_num_tweets_collected: 'integer',
        user_description: 'string',
        user_id_str: 'string',
        username: 'string',
        verified: 'boolean',
      }),
    ).toEqual([]);
    expect(r.username).toBe('pebble_orchard');
    expect(r.num_originals + r.num_quotes + r.num_replies + r.num_retweets).toBe(
      r.total_num_tweets_collected,
    );
    const posts = (await sbx.search('GET', `/api/iq/user_search/${created.body.id}/posts_data`)).body.posts;
    expect(posts.length).toBe(r.total_num_tweets_collected);
    for (const p of posts) expect(p.username).toBe('pebble_orchard');
  });

  it('facebook and instagram user searches finish without results; instagram posts carry top-level counts', async () => {
    for (const platform of ['facebook', 'instagram']) {
      const created = await sbx.search('POST', '/api/iq/user_search', {
        body: { query: 'velvet_falcon', platform },
      });
      const d = (await sbx.search('GET', `/api/iq/user_search/${created.body.id}`)).body;
      expect(d.status).toBe('finished');
      expect(d.results).toBeNull();
      const posts = (await sbx.search('GET', `/api/iq/user_search/${created.body.id}/posts_data`)).body.posts;
      expect(posts.length).toBeGreaterThan(0);
      if (platform === 'instagram') {
        expect(
          expectFields(posts[0], { ...COMMON_POST, comment_count: 'integer', like_count: 'integer' }),
        ).toEqual([]);
      }
    }
  });

  it('lists user searches', async () => {
    const res = await sbx.search('GET', '/api/iq/user_search');
    expect(res.status).toBe(200);
    expect(res.body.user_searches.length).toBe(3);
    expect(res.body.total).toBe(3);
  });
});

describe('expert search, usage, setup, credits', () => {
  it('expert search: create, details with expert_results, list', async () => {
    const created = await sbx.search('POST', '/api/search', {
      body: { query: 'coastal erosion researchers' },
    });
    expect(created.status).toBe(201);
    expect(
      expectFields(created.body, {
        id: 'integer',
        query: 'string',
        created_at: 'string',
        search_url: 'string',
      }),
    ).toEqual([]);
    const d = (await sbx.search('GET', `/api/search/${created.body.id}`)).body;
    expect(
      expectFields(d, {
        id: 'integer',
        query: 'string',
        created_at: 'string',
        updated_at: 'string',
        status: 'string',
        search_url: 'string',
        expert_results: 'array',
      }),
    ).toEqual([]);
    expect(d.status).toBe('completed');
    for (const e of d.expert_results) {
      expect(
        expectFields(e, {
          expert_name: 'string',
          expert_username: 'string',
          location: 'string',
          expert_url: 'string',
          languages: 'array',
          email: 'string',
          phone_number: 'string',
          professional_title: 'string',
        }),
      ).toEqual([]);
      expect(e.email).toMatch(/@example\.org$/);
    }
    const list = await sbx.search('GET', '/api/search?show=completed');
    expect(list.body.searches.map((s: { id: number }) => s.id)).toContain(created.body.id);
  });

  it('usage: counts per user, month filter, only the token header needed', async () => {
    const token = await sbx.credential();
    await sbx.search('POST', '/api/iq/keyword_search', { token, userId: 'alice', body: { query: 'a' } });
    await sbx.search('POST', '/api/iq/keyword_search', { token, userId: 'alice', body: { query: 'b' } });
    await sbx.search('POST', '/api/iq/user_search', {
      token,
      userId: 'bob',
      body: { query: 'c', platform: 'twitter' },
    });
    const res = await sbx.search('GET', '/api/usage', { token, userId: null });
    expect(res.status).toBe(200);
    expect(
      expectFields(res.body, {
        searches_count: 'integer',
        total_iq_searches_count: 'integer',
        usage_by_user: 'array',
      }),
    ).toEqual([]);
    expect(res.body.total_iq_searches_count).toBe(3);
    const alice = res.body.usage_by_user.find((u: { user: string }) => u.user === 'alice');
    expect(
      expectFields(alice, {
        user: 'string',
        searches_count: 'integer',
        total_iq_searches_counts: 'integer',
        iq_keywords_searches_count: 'integer',
        iq_users_searches_count: 'integer',
        last_search: 'string',
      }),
    ).toEqual([]);
    expect(alice.iq_keywords_searches_count).toBe(2);
    expect(alice.last_search).toMatch(ISO_Z);
    const month = new Date().toISOString().slice(0, 7);
    const thisMonth = await sbx.search('GET', `/api/usage?month=${month}`, { token, userId: null });
    expect(thisMonth.body.total_iq_searches_count).toBe(3);
    const old = await sbx.search('GET', '/api/usage?month=2020-01', { token, userId: null });
    expect(old.body.total_iq_searches_count).toBe(0);
    expect(old.body.usage_by_user).toEqual([]);
  });

  it('setup: GET and PUT return {return_url, name}', async () => {
    const token = await sbx.credential();
    const before = await sbx.search('GET', '/api/setup', { token });
    expect(before.status).toBe(200);
    expect(before.body.return_url).toBeNull();
    expect(typeof before.body.name).toBe('string');
    const put = await sbx.search('PUT', '/api/setup', {
      token,
      body: { return_url: 'https://hooks.example.com/in' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ return_url: 'https://hooks.example.com/in', name: before.body.name });
    expect((await sbx.search('GET', '/api/setup', { token })).body.return_url).toBe(
      'https://hooks.example.com/in',
    );
  });

  it('credits: GET /api/iq/credits and searches spend one credit each', async () => {
    const token = await sbx.credential({ credits: 5 });
    const c0 = await sbx.search('GET', '/api/iq/credits', { token });
    expect(c0.body).toEqual({ available_credits: 5, credits_limit: null, period_reset_date: null });
    await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'spend' } });
    await sbx.search('POST', '/api/iq/user_search', { token, body: { query: 'spend', platform: 'twitter' } });
    expect((await sbx.search('GET', '/api/iq/credits', { token })).body.available_credits).toBe(3);
    const record = await sbx.control('GET', `/credentials/${token}`);
    expect(record.body.credits).toBe(3);
    expect(record.body.searches.keyword).toHaveLength(1);
    expect(record.body.searches.user).toHaveLength(1);
  });
});
