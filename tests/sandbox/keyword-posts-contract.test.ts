// The sandbox honours the search host contract (docs/upstream.md): keyword searches' posts, topic trees and
// lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFields, type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { COMMON_POST, keywordSearch } from '../helpers/search-contract.js';

let sbx: Sandbox;
beforeAll(async () => {
  sbx = await startSandbox();
});
afterAll(async () => {
  await sbx?.stop();
});

describe('keyword search resources: posts, topic trees, lists', () => {
  it('posts_data field sets per platform, including numeric-string statistics', async () => {
    const { details } = await keywordSearch(sbx, {
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
    // No filter value exists for threads or YouTube's comments: `all` holds them, and the filter
    // refuses what the description does not list.
    const threadsFilter = await sbx.search(
      'GET',
      `/api/iq/keyword_search/${details.id}/posts_data?platform=threads`,
    );
    expect(threadsFilter.status).toBe(400);
    const all = await sbx.search('GET', `/api/iq/keyword_search/${details.id}/posts_data`);
    const kinds = (p: { platform: string }) => p.platform;
    expect(new Set(all.body.posts.map(kinds))).toEqual(
      new Set(['twitter', 'reddit', 'bluesky', 'youtube', 'youtube_comment', 'threads', 'facebook', 'weibo']),
    );
    const th = all.body.posts.find((p: { platform: string }) => p.platform === 'threads');
    expect(expectFields(th, { ...COMMON_POST, profile_url: 'string', statistics: 'object' })).toEqual([]);
    const comment = all.body.posts.find((p: { platform: string }) => p.platform === 'youtube_comment');
    expect(expectFields(comment, { ...COMMON_POST, statistics: 'object' })).toEqual([]);
    expect(comment.post_url).toMatch(/[?&]lc=/);
    expect(comment.total_interactions_count).toBe(
      comment.statistics.like_count + comment.statistics.reply_count,
    );
    // posts_data holds exactly the posts of results.posts, kind for kind.
    for (const [kind, list] of Object.entries<unknown[]>(details.results.posts)) {
      const mine = all.body.posts.filter((p: { platform: string }) => p.platform === kind);
      expect(
        mine.map((p: { post_url: string }) => p.post_url),
        kind,
      ).toEqual(list.map((p) => (p as { l: string }).l));
    }
    expect(all.body.posts).toHaveLength(
      Object.values<unknown[]>(details.results.posts).reduce((n, list) => n + list.length, 0),
    );
  });

  it('LinkedIn searches finish without results and return LinkedIn-shaped posts', async () => {
    const { details } = await keywordSearch(sbx, { query: 'remote work', platforms: ['linkedin'] });
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
    const { details } = await keywordSearch(sbx, {
      query: 'urban gardens',
      platforms: ['twitter', 'reddit'],
    });
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
    for (const query of ['list one', 'list two', 'list three', 'list four'])
      await keywordSearch(sbx, { query });
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
