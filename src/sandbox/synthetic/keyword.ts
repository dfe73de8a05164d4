import { SYNTH_POSTS_MAX, SYNTH_POSTS_MIN, TWEET_PREVIEW_SIZE } from '../constants.js';
import { generatePosts, type PostPlatform, type PostWindow, queryHashtag, type SynthPost } from './posts.js';
import { Rng, sha256Hex } from './prng.js';
import { compactPost, type JsonObject, linkedinPosts, postsDataRecord } from './shapes.js';

export interface KeywordInput {
  query: string;
  platforms: string[];
  window: PostWindow;
  maxPost: number;
  /** Posts per platform before max_post trims them; absent: a seeded SYNTH_POSTS_MIN–MAX. */
  synthPosts?: number | null;
  /** Searched platforms that collected nothing (YouTube's comments go with YouTube). */
  emptyPlatforms?: readonly string[];
}

export interface KeywordDataset {
  /** posts_data records in platform order: exactly the posts of results.posts, YouTube comments included. */
  postsData: JsonObject[];
  preview: JsonObject[];
  /** Analysis without its created_at (added when the search finishes); null for LinkedIn. */
  results: JsonObject | null;
  trees: JsonObject[];
  idHash: string;
}

function postCount(input: KeywordInput, platform: string): number {
  const { query, maxPost, synthPosts } = input;
  const collected = platform === 'youtube_comment' ? 'youtube' : platform;
  if (input.emptyPlatforms?.includes(collected)) return 0;
  if (synthPosts != null) return Math.min(maxPost, synthPosts);
  const rng = new Rng(`count|${query.trim().toLowerCase()}|${platform}`);
  return Math.min(maxPost, rng.int(SYNTH_POSTS_MIN, SYNTH_POSTS_MAX));
}

export function classifySentiment(posts: SynthPost[]): string {
  const c = { positive: 0, negative: 0, neutral: 0, irrelevant: 0 };
  for (const p of posts) c[p.sentiment]++;
  const relevant = c.positive + c.negative + c.neutral;
  if (relevant < 3 || c.irrelevant * 2 > posts.length) return 'Unknown';
  if (c.positive / relevant >= 0.55) return 'Positive';
  if (c.negative / relevant >= 0.55) return 'Negative';
  if (c.neutral / relevant >= 0.55) return 'Neutral';
  return 'Mixed';
}

export function sentimentSummary(platform: string, posts: SynthPost[], label: string): string {
  const c = { positive: 0, negative: 0, neutral: 0, irrelevant: 0 };
  for (const p of posts) c[p.sentiment]++;
  return (
    `${label} sentiment on ${platform}: of ${posts.length} posts, ${c.positive} positive, ` +
    `${c.negative} negative, ${c.neutral} neutral and ${c.irrelevant} irrelevant.`
  );
}

function topUsers(posts: SynthPost[]): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const p of posts) counts.set(p.author.username, (counts.get(p.author.username) ?? 0) + 1);
  return [...counts.entries()]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

function verdict(platform: string, posts: SynthPost[] | undefined): JsonObject {
  if (posts === undefined || posts.length === 0) {
    return { context: `No ${platform} posts were collected for this search.`, verdict: false };
  }
  const top = topUsers(posts)[0] ?? { name: '', count: 0 };
  const share = top.count / posts.length;
  return {
    context: `The most active ${platform} account (@${top.name}) wrote ${top.count} of ${posts.length} posts (${Math.round(share * 100)}%).`,
    verdict: share > 0.3,
  };
}

function breakoutMoments(all: SynthPost[], tag: string): JsonObject[] {
  const byDay = new Map<string, SynthPost[]>();
  for (const p of all) {
    const day = new Date(p.createdMs).toISOString().slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), p]);
  }
  return [...byDay.entries()]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([day, posts]) => {
      const interactions = posts.reduce((s, p) => s + p.interactions, 0);
      return {
        height: Math.round((posts.length / all.length) * 1000) / 10,
        summary: `${posts.length} posts about #${tag} on ${day} drew ${interactions} interactions.`,
        time: `${day}T12:00:00`,
      };
    });
}

function coOccurrence(byPlatform: Map<PostPlatform, SynthPost[]>): JsonObject[] {
  const entries: { count: number; name: string; platform: string; type: string }[] = [];
  for (const [platform, posts] of byPlatform) {
    if (platform === 'youtube_comment') continue;
    const tags = new Map<string, number>();
    const urls = new Map<string, number>();
    for (const p of posts) {
      for (const h of p.hashtags) tags.set(`#${h}`, (tags.get(`#${h}`) ?? 0) + 1);
      for (const u of p.urls) urls.set(u, (urls.get(u) ?? 0) + 1);
    }
    for (const [name, count] of tags) entries.push({ count, name, platform, type: 'hashtag' });
    for (const [name, count] of urls) entries.push({ count, name, platform, type: 'url' });
  }
  return entries
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name) || a.platform.localeCompare(b.platform))
    .slice(0, 20);
}

function twitterMetric(posts: SynthPost[]): JsonObject {
  const users = topUsers(posts);
  const authors = new Map(posts.map((p) => [p.author.username, p.author]));
  const newAccounts = [...authors.values()].filter((a) => a.createdMs >= Date.UTC(2022, 0, 1)).length;
  const topTenPercent = Math.max(1, Math.ceil(users.length / 10));
  const fromTop = users.slice(0, topTenPercent).reduce((s, u) => s + u.count, 0);
  return {
    account_created_after_2021: newAccounts,
    avg_post_per_user: users.length === 0 ? 0 : Math.round((posts.length / users.length) * 100) / 100,
    percent_post_from_top_10_percent_user:
      posts.length === 0 ? 0 : Math.round((fromTop / posts.length) * 1000) / 10,
    top_10_user: users.slice(0, 10).map((u) => u.name),
  };
}

function topicTree(platform: string, posts: SynthPost[], query: string, idHash: string): JsonObject {
  const themes = new Map<string, SynthPost[]>();
  for (const p of posts) {
    const theme = p.hashtags[p.hashtags.length - 1] ?? 'general';
    themes.set(theme, [...(themes.get(theme) ?? []), p]);
  }
  return {
    platform,
    id_hash256: idHash,
    name: query,
    children: [...themes.entries()]
      .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
      .map(([theme, group]) => ({
        name: `#${theme}`,
        value: group.length,
        children: group.slice(0, 5).map((p) => ({ name: p.text.slice(0, 80) })),
      })),
  };
}

export function keywordDataset(input: KeywordInput): KeywordDataset {
  const idHash = sha256Hex(
    `keyword|${input.query}|${input.platforms.join(',')}|${input.window.startMs}|${input.window.endMs}|${input.maxPost}`,
  );
  if (input.platforms.includes('linkedin')) {
    const posts = linkedinPosts(input.query, input.window, postCount(input, 'linkedin'));
    return { postsData: posts, preview: [], results: null, trees: [], idHash };
  }
  const byPlatform = new Map<PostPlatform, SynthPost[]>();
  for (const platform of input.platforms as PostPlatform[]) {
    const count = postCount(input, platform);
    byPlatform.set(
      platform,
      generatePosts({ kind: 'keyword', query: input.query, platform, window: input.window, count }),
    );
  }
  if (byPlatform.has('youtube')) {
    const count = postCount(input, 'youtube_comment');
    byPlatform.set(
      'youtube_comment',
      generatePosts({
        kind: 'keyword',
        query: input.query,
        platform: 'youtube_comment',
        window: input.window,
        count,
      }),
    );
  }
  const searched = [...byPlatform.entries()].filter(([p]) => p !== 'youtube_comment');
  const all = searched.flatMap(([, posts]) => posts);
  const tag = queryHashtag(input.query);
  const interaction: JsonObject = {};
  const sentiment: JsonObject = {};
  const summary: JsonObject = {};
  for (const [platform, posts] of searched) {
    interaction[platform] = posts.reduce((s, p) => s + p.interactions, 0);
    const label = classifySentiment(posts);
    sentiment[platform] = label;
    summary[platform] = sentimentSummary(platform, posts, label);
  }
  // Every kind of post collected, keyed as results.posts documents it (youtube_comment included); a
  // searched platform that collected nothing has an empty array.
  const resultPosts: JsonObject = {};
  for (const [platform, posts] of byPlatform) resultPosts[platform] = posts.map(compactPost);
  const twitter = byPlatform.get('twitter');
  const twitterAuthors =
    twitter === undefined ? [] : [...new Map(twitter.map((p) => [p.author.username, p.author])).values()];
  const newPercent =
    twitterAuthors.length === 0
      ? 0
      : Math.round(
          (twitterAuthors.filter((a) => a.createdMs >= Date.UTC(2022, 0, 1)).length / twitterAuthors.length) *
            100,
        );
  const verdicts = {
    frequent_posters_bluesky: verdict('bluesky', byPlatform.get('bluesky')),
    frequent_posters_reddit: verdict('reddit', byPlatform.get('reddit')),
    frequent_posters_twitter: verdict('twitter', twitter),
    frequent_posters_youtube: verdict('youtube', byPlatform.get('youtube')),
    twitter_new_account_percent: {
      context: `${newPercent}% of the twitter accounts in this search were created after 2021.`,
      verdict: newPercent > 40,
    },
  };
  const positives = Object.values(verdicts).filter((v) => v.verdict === true).length;
  const concentration =
    twitter === undefined ? 0 : (topUsers(twitter)[0]?.count ?? 0) / Math.max(1, twitter.length);
  const results: JsonObject = {
    breakout_moment: breakoutMoments(all, tag),
    co_occurrence: coOccurrence(byPlatform),
    id_hash256: idHash,
    indicator_of_coordination: {
      coordination_score: Math.min(100, positives * 15 + Math.round(concentration * 40)),
      ...verdicts,
    },
    interaction,
    metric: twitter === undefined ? {} : { twitter: twitterMetric(twitter) },
    posts: resultPosts,
    query: input.query,
    sentiment,
    summary,
  };
  const postsData = [...byPlatform.values()].flatMap((posts) => posts.map(postsDataRecord));
  const preview = [...all]
    .sort((a, b) => b.interactions - a.interactions)
    .slice(0, TWEET_PREVIEW_SIZE)
    .map(compactPost);
  const trees = searched.map(([platform, posts]) => topicTree(platform, posts, input.query, idHash));
  return { postsData, preview, results, trees, idHash };
}
