import { makeAuthor } from './authors.js';
import { LINKEDIN_TYPES } from './pools.js';
import { type PostWindow, queryWords, type SynthPost, spaceTimestamp, zonelessIso } from './posts.js';
import { Rng } from './prng.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Compact post shape used in results.posts and tweet_preview. */
export function compactPost(post: SynthPost): JsonObject {
  const out: JsonObject = {
    comment: post.comments,
    d: post.text,
    i: post.interactions,
    l: post.postUrl,
    like: post.likes,
    n: post.author.username,
    p: post.author.profileImage,
    t: zonelessIso(post.createdMs),
    view: post.views,
  };
  if (post.platform === 'twitter') {
    out.u_d = post.author.description;
    out.u_id = post.author.userId;
    out.u_loc = post.author.location;
    out.u_t = zonelessIso(post.author.createdMs);
  }
  return out;
}

/**
 * posts_data record for one post; field sets per platform as docs/upstream.md lists them. A YouTube
 * comment keeps results.posts' name for it, `youtube_comment` (assumed: the description names no
 * platform value for comments), with the comment's own counts.
 */
export function postsDataRecord(post: SynthPost): JsonObject {
  const platform = post.platform;
  const out: JsonObject = {
    platform,
    created_at: spaceTimestamp(post.createdMs),
    emotion: post.emotion,
    media_url: post.mediaUrl,
    post_url: post.postUrl,
    sentiment: post.sentiment,
    sentiment_reason: post.sentimentReason,
    sentiment_target: post.sentimentTarget,
    text: post.text,
    total_interactions_count: post.interactions,
    username: post.author.username,
  };
  if (platform !== 'youtube' && platform !== 'youtube_comment') out.profile_url = post.profileUrl;
  const a = post.author;
  switch (platform) {
    case 'twitter':
      Object.assign(out, {
        account_type: a.accountType,
        account_type_reason: a.accountTypeReason,
        conversation_id_str: post.id,
        country: a.countryName,
        country_code: a.countryCode,
        country_reason: `Profile location "${a.location}".`,
        favourites_count: a.favourites,
        followers_count: a.followers,
        friends_count: a.following,
        location: a.location,
        media_count: a.media,
        // view_count arrives as a numeric string upstream (documented quirk).
        statistics: {
          like_count: post.likes,
          quote_count: post.quotes,
          reply_count: post.comments,
          retweet_count: post.shares,
          view_count: String(post.views),
        },
        statuses_count: a.statuses,
        user_created_at: spaceTimestamp(a.createdMs),
        user_description: a.description,
        user_id: a.userId,
      });
      break;
    case 'reddit':
      out.statistics = {
        comment_count: post.comments,
        like_count: post.likes,
        num_users: 1 + (post.comments % 40),
      };
      break;
    case 'bluesky':
      out.statistics = {
        likeCount: post.likes,
        quoteCount: post.quotes,
        replyCount: post.comments,
        repostCount: post.shares,
      };
      break;
    case 'youtube':
      // like_count and view_count are numeric strings upstream (documented quirk).
      out.statistics = {
        comment_count: post.comments,
        like_count: String(post.likes),
        view_count: String(post.views),
      };
      out.media_url = `https://example.net/thumbnails/${post.id}.jpg`;
      break;
    case 'youtube_comment':
      out.statistics = { like_count: post.likes, reply_count: post.comments };
      break;
    case 'threads':
      out.statistics = { like_count: post.likes, reply_count: post.comments, repost_count: post.shares };
      break;
    case 'instagram':
      out.comment_count = post.comments;
      out.like_count = post.likes;
      break;
    case 'facebook':
      Object.assign(out, {
        comment_count: post.comments,
        reaction_count: post.reactions.reduce((s, r) => s + r.count, 0),
        reactions_detail: post.reactions,
        share_count: post.shares,
        user_id: a.userId,
      });
      break;
    case 'weibo':
      Object.assign(out, {
        error: 'no',
        item_number: Number(post.id.slice(-3)),
        page_number: 1 + (Number(post.id.slice(-2)) % 5),
        media_url: post.mediaUrl === '' ? '' : `${post.mediaUrl},https://example.net/media/${post.id}-2.jpg`,
        statistics: {
          comment_count: post.comments,
          id: post.id,
          image_url: post.mediaUrl,
          like_count: post.likes,
          posting_tool: 'Web',
          repost_count: post.shares,
          retweet_id: '',
          retweet_url: '',
          user_authentication: a.accountType === 'Organization' ? 'verified' : 'none',
          video_url: '',
        },
        user_description: a.description,
      });
      break;
  }
  return out;
}

/** LinkedIn posts have their own shape (no created_at, emotion or sentiment). */
export function linkedinPosts(query: string, window: PostWindow, count: number): JsonObject[] {
  const rng = new Rng(`keyword|${query.trim().toLowerCase()}|linkedin`);
  const phrase = queryWords(query).slice(0, 4).join(' ');
  const span = Math.max(window.endMs - window.startMs, 12 * 3_600_000);
  const out: { ms: number; post: JsonObject }[] = [];
  for (let n = 0; n < count; n++) {
    const a = makeAuthor(rng);
    const id = rng.digits(19);
    const ms = window.startMs + Math.floor(rng.next() * span);
    const shared = rng.chance(0.4);
    out.push({
      ms,
      post: {
        date_published: new Date(ms).toISOString(),
        image_url: rng.chance(0.5) ? `https://example.net/media/${id}.jpg` : '',
        platform: 'linkedin',
        shared_content_text: shared ? `A longer read on ${phrase}` : '',
        shared_content_url: shared ? `https://example.org/article/${rng.digits(6)}` : '',
        text: `Professional perspective on ${phrase}: what it means for teams this quarter.`,
        type: rng.pick(LINKEDIN_TYPES),
        url: `https://example.com/linkedin/posts/${a.username}-${id}`,
        user_description: a.description.slice(0, 40),
        user_description_full: a.description,
        user_follower_count: rng.chance(0.2) ? null : a.followers,
        user_name: a.displayName,
        user_profile_url: `https://example.com/linkedin/in/${a.username}`,
        user_url: `https://example.com/linkedin/in/${a.username}`,
      },
    });
  }
  return out.sort((x, y) => y.ms - x.ms).map((x) => x.post);
}
