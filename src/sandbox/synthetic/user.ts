import { SYNTH_POSTS_MAX, SYNTH_POSTS_MIN, TWEET_PREVIEW_SIZE } from '../constants.js';
import { LANGS } from './pools.js';
import { generatePosts, type PostPlatform, type PostWindow, spaceTimestamp } from './posts.js';
import { Rng, sha256Hex } from './prng.js';
import { compactPost, type JsonObject, postsDataRecord } from './shapes.js';

export interface UserInput {
  username: string;
  platform: 'twitter' | 'facebook' | 'instagram';
  window: PostWindow;
  maxPost: number;
  /** Posts before max_post trims them; absent: a seeded SYNTH_POSTS_MIN–MAX. */
  synthPosts?: number | null;
}

export interface UserDataset {
  postsData: JsonObject[];
  preview: JsonObject[];
  /** Profile analytics without nothing time-dependent; null for facebook and instagram (documented). */
  results: JsonObject | null;
}

function countMap(items: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[item] = (out[item] ?? 0) + 1;
  return out;
}

function top5(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(map)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5),
  );
}

const DAY_MS = 86_400_000;

export function userDataset(input: UserInput): UserDataset {
  const rng = new Rng(`user-count|${input.username.toLowerCase()}|${input.platform}`);
  const count = Math.min(input.maxPost, input.synthPosts ?? rng.int(SYNTH_POSTS_MIN, SYNTH_POSTS_MAX));
  const posts = generatePosts({
    kind: 'user',
    query: input.username,
    platform: input.platform as PostPlatform,
    window: input.window,
    count,
    onlyAuthor: input.username,
  });
  const postsData = posts.map(postsDataRecord);
  const preview = posts.slice(0, TWEET_PREVIEW_SIZE).map(compactPost);
  if (input.platform !== 'twitter') return { postsData, preview, results: null };

  const author = posts[0]?.author;
  const kinds = ['originals', 'quote_tweets', 'replies', 'retweets'] as const;
  // Each post gets a kind deterministically so the counts and percentages add up.
  const kindOf = posts.map(() => kinds[rng.int(0, 3)] as (typeof kinds)[number]);
  const n = (k: (typeof kinds)[number]) => kindOf.filter((x) => x === k).length;
  const total = posts.length;
  const pct = (x: number) => (total === 0 ? 0 : Math.round((x / total) * 1000) / 1000);
  const out: JsonObject = {};
  for (const k of kinds) {
    const inKind = posts.filter((_, i) => kindOf[i] === k);
    const tags = countMap(inKind.flatMap((p) => p.hashtags));
    const urls = inKind.flatMap((p) => p.urls);
    out[`hashtag_only_${k}`] = tags;
    out[`hashtag_only_${k}_num`] = Object.values(tags).reduce((s, v) => s + v, 0);
    out[`hashtag_only_${k}_pct`] = pct(inKind.filter((p) => p.hashtags.length > 0).length);
    out[`url_only_${k}_domain`] = countMap(urls.map((u) => new URL(u).hostname));
    out[`url_only_${k}_url`] = countMap(urls);
    out[`url_only_${k}_num`] = urls.length;
    out[`url_only_${k}_pct`] = pct(inKind.filter((p) => p.urls.length > 0).length);
  }
  const times = posts.map((p) => p.createdMs).sort((a, b) => a - b);
  const gaps: { start: string; end: string; days: number }[] = [];
  for (let i = 1; i < times.length; i++) {
    const a = times[i - 1] as number;
    const b = times[i] as number;
    gaps.push({
      start: spaceTimestamp(a),
      end: spaceTimestamp(b),
      days: Math.round(((b - a) / DAY_MS) * 10) / 10,
    });
  }
  const spanDays = Math.max(1, (input.window.endMs - input.window.startMs) / DAY_MS);
  const likes = posts.map((p) => p.likes);
  const rts = posts.map((p) => p.shares);
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
  const outliers = (xs: number[]) => xs.flatMap((x, i) => (x > mean(xs) * 3 ? [i] : []));
  const duplicates = countMap(posts.map((p) => p.text.split('.')[0] ?? ''));
  const dupEntries = Object.entries(duplicates).filter(([, c]) => c > 1);
  const dupTexts = new Set(dupEntries.map(([t]) => t));
  const others = ['amber_heron12', 'tidal_quill88', 'opal_marmot301', 'sable_puffin47'];
  const who = () => Object.fromEntries(others.filter(() => rng.chance(0.6)).map((u) => [u, rng.int(1, 9)]));
  const allTags = countMap(posts.flatMap((p) => p.hashtags.map((h) => `#${h}`)));
  const allUrls = countMap(posts.flatMap((p) => p.urls));
  const allDomains = countMap(posts.flatMap((p) => p.urls.map((u) => new URL(u).hostname)));
  const a = author;
  const created = a?.createdMs ?? Date.UTC(2015, 0, 1);
  const results: JsonObject = {
    ...out,
    account_age_in_days: Math.floor((input.window.endMs - created) / DAY_MS),
    account_creation_time: spaceTimestamp(created),
    account_type: a?.accountType ?? 'Individual',
    ai_summary: `@${input.username} posts mostly about ${Object.keys(top5(allTags)).slice(0, 2).join(' and ') || 'general topics'}, with ${n('originals')} original posts out of ${total} collected.`,
    avg_tweets_per_day: Math.round((total / spanDays) * 100) / 100,
    avg_tweets_per_month: Math.round((total / (spanDays / 30)) * 100) / 100,
    collection_start_date: new Date(input.window.startMs).toISOString().slice(0, 10),
    collection_end_date: new Date(input.window.endMs).toISOString().slice(0, 10),
    country_code: a?.countryCode ?? 'US',
    country_name: a?.countryName ?? 'United States',
    duplicate_count: Object.fromEntries(dupEntries),
    duplicate_index: posts.flatMap((p, i) => (dupTexts.has(p.text.split('.')[0] ?? '') ? [i] : [])),
    engagement_rate:
      a === undefined || a.followers === 0
        ? 0
        : Math.round((posts.reduce((s, p) => s + p.interactions, 0) / total / a.followers) * 10_000) / 10_000,
    freq_quote_who: who(),
    freq_reply_who: who(),
    freq_retweet_who: who(),
    id_hash256: sha256Hex(
      `user|${input.username}|${input.platform}|${input.window.startMs}|${input.window.endMs}`,
    ),
    lang: countMap(posts.map(() => rng.pick(LANGS))),
    largest_time_gap: gaps.sort((x, y) => y.days - x.days).slice(0, 3),
    name: a?.displayName ?? input.username,
    num_followers: a?.followers ?? 0,
    num_following: a?.following ?? 0,
    num_originals: n('originals'),
    num_quotes: n('quote_tweets'),
    num_replies: n('replies'),
    num_retweets: n('retweets'),
    pct_originals: pct(n('originals')),
    pct_quotes: pct(n('quote_tweets')),
    pct_replies: pct(n('replies')),
    pct_retweets: pct(n('retweets')),
    outlier_like: outliers(likes).length > 0,
    outlier_like_index: outliers(likes),
    outlier_rt: outliers(rts).length > 0,
    outlier_rt_index: outliers(rts),
    profile_image_url_https: a?.profileImage ?? `https://example.net/avatars/${input.username}.png`,
    recent_tweet_result_url: `https://example.com/exports/${input.username}/recent.json`,
    top_5_domains: top5(allDomains),
    top_5_hashtags: top5(allTags),
    top_5_urls: top5(allUrls),
    total_num_tweets_collected: total,
    user_description: a?.description ?? '',
    user_id_str: a?.userId ?? '0',
    username: input.username,
    verified: a?.accountType === 'Organization',
  };
  return { postsData, preview, results };
}
