import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, ISO_Z, type Sandbox, startSandbox } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});

const COMPACT = {
  comment: 'integer',
  d: 'string',
  i: 'integer',
  l: 'string',
  like: 'integer',
  n: 'string',
  p: 'string',
  t: 'string',
  view: 'integer',
};
const TWITTER_COMPACT = { ...COMPACT, u_d: 'string', u_id: 'string', u_loc: 'string', u_t: 'string' };
const COMMON_POST = {
  created_at: 'string',
  emotion: 'string',
  media_url: 'string',
  platform: 'string',
  post_url: 'string',
  sentiment: 'string',
  sentiment_reason: 'string',
  sentiment_target: 'string',
  text: 'string',
  total_interactions_count: 'integer',
  username: 'string',
};

async function keyword(body: Record<string, unknown>, token?: string) {
  const created = await sbx.search('POST', '/api/iq/keyword_search', { body, token });
  expect(created.status).toBe(201);
  const details = await sbx.search('GET', `/api/iq/keyword_search/${created.body.id}`, { token });
  expect(details.status).toBe(200);
  return { created: created.body, details: details.body };
}

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
    const { details } = await keyword({
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
    const { details } = await keyword({
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
    const a = await keyword(body);
    const b = await keyword(body);
    expect(a.details.id).not.toBe(b.details.id);
    const strip = (r: Record<string, unknown>) => ({ ...r, created_at: undefined });
    expect(strip(b.details.results)).toEqual(strip(a.details.results));
    const pa = await sbx.search('GET', `/api/iq/keyword_search/${a.details.id}/posts_data`);
    const pb = await sbx.search('GET', `/api/iq/keyword_search/${b.details.id}/posts_data`);
    expect(pb.body).toEqual(pa.body);
    expect(pa.body.posts.length).toBeGreaterThan(0);
    const other = await keyword({ ...body, query: 'different words entirely' });
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
    const { details } = await keyword({ query: 'cap test', max_post: 3 });
    for (const posts of Object.values<unknown[]>(details.results.posts))
      expect(posts.length).toBeLessThanOrEqual(3);
    const data = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data?platform=twitter`);
    expect(data.body.posts.length).toBe(3);
  });

  it('posts_data field sets per platform, including numeric-string statistics', async () => {
    const { details } = await keyword({
      query: 'tidal energy',
      platforms: ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo'],
    });
    const get = async (platform: string) => {
      const res = await sbx.search(
        'GET',
        `/api/iq/keyword_search/${details.id}/posts_data?platform=${platform}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.posts.length, platform).toBeGreaterThan(0);
      for (const p of res.body.posts) expect(p.platform).toBe(platform);
      return res.body.posts[0];
    };
    const tw = await get('twitter');
    expect(
      expectFields(tw, {
        ...COMMON_POST,
        profile_url: 'string',
        account_type: 'string',
        account_type_reason: 'string',
        conversation_id_str: 'string',
        country: 'string',
        country_code: 'string',
        country_reason: 'string',
        favourites_count: 'integer',
        followers_count: 'integer',
        friends_count: 'integer',
        location: 'string',
        media_count: 'integer',
        statistics: 'object',
        statuses_count: 'integer',
        user_created_at: 'string',
        user_description: 'string',
        user_id: 'string',
      }),
    ).toEqual([]);
    expect(tw.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(tw.country_code).toMatch(/^[A-Z]{2}$/);
    expect(['positive', 'negative', 'neutral', 'irrelevant']).toContain(tw.sentiment);
    expect(
      expectFields(tw.statistics, {
        like_count: 'integer',
        quote_count: 'integer',
        reply_count: 'integer',
        retweet_count: 'integer',
        view_count: 'numeric-string',
      }),
    ).toEqual([]);
    const rd = await get('reddit');
    expect(expectFields(rd, { ...COMMON_POST, profile_url: 'string', statistics: 'object' })).toEqual([]);
    expect(
      expectFields(rd.statistics, { comment_count: 'integer', like_count: 'integer', num_users: 'integer' }),
    ).toEqual([]);
    const bs = await get('bluesky');
    expect(
      expectFields(bs.statistics, {
        likeCount: 'integer',
        quoteCount: 'integer',
        replyCount: 'integer',
        repostCount: 'integer',
      }),
    ).toEqual([]);
    const yt = await get('youtube');
    expect(expectFields(yt, { ...COMMON_POST, statistics: 'object' })).toEqual([]);
    expect('profile_url' in yt).toBe(false);
    expect(
      expectFields(yt.statistics, {
        comment_count: 'integer',
        like_count: 'numeric-string',
        view_count: 'numeric-string',
      }),
    ).toEqual([]);
    expect(yt.total_interactions_count).toBe(Number(yt.statistics.view_count));
    const fb = await get('facebook');
    expect(
      expectFields(fb, {
        ...COMMON_POST,
        comment_count: 'integer',
        reaction_count: 'integer',
        reactions_detail: 'array',
        share_count: 'integer',
        user_id: 'string',
      }),
    ).toEqual([]);
    expect(fb.total_interactions_count).toBe(fb.comment_count + fb.share_count + fb.reaction_count);
    for (const r of fb.reactions_detail)
      expect(expectFields(r, { name: 'string', count: 'integer' })).toEqual([]);
    const wb = await get('weibo');
    expect(
      expectFields(wb, {
        ...COMMON_POST,
        error: 'string',
        item_number: 'integer',
        page_number: 'integer',
        statistics: 'object',
        user_description: 'string',
      }),
    ).toEqual([]);
    expect(wb.error).toBe('no');
    expect(Object.keys(wb.statistics).sort()).toEqual(
      [
        'comment_count',
        'id',
        'image_url',
        'like_count',
        'posting_tool',
        'repost_count',
        'retweet_id',
        'retweet_url',
        'user_authentication',
        'video_url',
      ].sort(),
    );
    await get('threads');
    const all = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data`);
    expect(new Set(all.body.posts.map((p: { platform: string }) => p.platform)).size).toBe(7);
  });

  it('LinkedIn searches finish without results and return LinkedIn-shaped posts', async () => {
    const { details } = await keyword({ query: 'remote work', platforms: ['linkedin'] });
    expect(details.status).toBe('finished');
    expect(details.results).toBeNull();
    const res = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data?platform=linkedin`);
    const p = res.body.posts[0];
    expect(
      expectFields(p, {
        date_published: 'string',
        image_url: 'string',
        platform: 'string',
        shared_content_text: 'string',
        shared_content_url: 'string',
        text: 'string',
        type: 'string',
        url: 'string',
        user_description: 'string',
        user_description_full: 'string',
        user_follower_count: ['integer', 'null'],
        user_name: 'string',
        user_profile_url: 'string',
        user_url: 'string',
      }),
    ).toEqual([]);
    for (const k of ['created_at', 'emotion', 'sentiment']) expect(k in p).toBe(false);
    expect(['Article', 'DiscussionForumPosting', 'VideoObject']).toContain(p.type);
    const tree = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/topic_tree`);
    expect(tree.body.data).toEqual([]);
  });

  it('topic tree: data holds every platform tree, the first also copied at the top level', async () => {
    const { details } = await keyword({ query: 'urban gardens', platforms: ['twitter', 'reddit'] });
    const res = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/topic_tree`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { platform: string }) => t.platform)).toEqual(['twitter', 'reddit']);
    const first = res.body.data[0];
    expect(
      expectFields(first, {
        platform: 'string',
        id_hash256: 'string',
        created_at: 'string',
        name: 'string',
        children: 'array',
      }),
    ).toEqual([]);
    expect(res.body.platform).toBe(first.platform);
    expect(res.body.children).toEqual(first.children);
    const branch = first.children[0];
    expect(expectFields(branch, { name: 'string', value: 'integer', children: 'array' })).toEqual([]);
    const total = first.children.reduce((s: number, c: { value: number }) => s + c.value, 0);
    expect(total).toBe(details.results.posts.twitter.length);
    const one = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/topic_tree?platform=reddit`);
    expect(one.body.data.map((t: { platform: string }) => t.platform)).toEqual(['reddit']);
  });

  it('lists keyword searches with show and page', async () => {
    const res = await sbx.search('GET', '/api/iq/keyword_search?show=finished&page=1');
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(1);
    expect(res.body.total).toBe(res.body.keyword_searches.length);
    expect(res.body.total).toBeGreaterThan(3);
    for (const s of res.body.keyword_searches) {
      expect(
        expectFields(s, {
          id: 'integer',
          query: 'string',
          created_at: 'string',
          updated_at: 'string',
          status: 'string',
        }),
      ).toEqual([]);
      expect(s.status).toBe('finished');
    }
    const pending = await sbx.search('GET', '/api/iq/keyword_search?show=pending');
    expect(pending.body.keyword_searches).toEqual([]);
  });
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
