import type { AnalysisLines } from './analysis.js';
import { clip } from './fence.js';
import { counts, day, isRecord, num, pct } from './format.js';

/**
 * A user search's profile analytics (`results`, docs/upstream.md, Searches) as compact
 * markdown lines. The account's own words (its name, bio, hashtags, repeated phrases, the accounts it
 * talks to) and the summary upstream wrote from its posts are returned apart, for the untrusted-content
 * fence.
 */
export function userProfileLines(r: Record<string, unknown>): AnalysisLines {
  const facts: string[] = [];
  const untrusted: string[] = [];
  if (typeof r.name === 'string' && r.name) untrusted.push(`Name: ${clip(r.name, 80)}`);
  const who = [
    r.verified === true ? 'verified' : null,
    typeof r.account_type === 'string' ? r.account_type : null,
    typeof r.country_name === 'string' ? r.country_name : null,
    r.num_followers !== undefined ? `${num(r.num_followers)} followers` : null,
    r.num_following !== undefined ? `${num(r.num_following)} following` : null,
    r.account_creation_time !== undefined ? `account since ${day(r.account_creation_time)}` : null,
  ].filter(Boolean);
  if (who.length) facts.push(`Account: ${who.join(' · ')}.`);

  const mix = [
    ['originals', r.pct_originals],
    ['replies', r.pct_replies],
    ['quotes', r.pct_quotes],
    ['retweets', r.pct_retweets],
  ]
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${pct(v)}`);
  const activity = [
    r.total_num_tweets_collected !== undefined
      ? `${num(r.total_num_tweets_collected)} posts collected`
      : null,
    r.collection_start_date !== undefined
      ? `${day(r.collection_start_date)} to ${day(r.collection_end_date)}`
      : null,
    mix.length ? mix.join(', ') : null,
    r.avg_tweets_per_day !== undefined ? `${num(r.avg_tweets_per_day)} per day` : null,
    typeof r.engagement_rate === 'number' ? `engagement rate ${r.engagement_rate}` : null,
  ].filter(Boolean);
  if (activity.length) facts.push(`Activity: ${activity.join('; ')}.`);
  if (isRecord(r.lang)) facts.push(`Languages: ${counts(r.lang, 6)}.`);
  if (typeof r.ai_summary === 'string') untrusted.push(`Summary: ${clip(r.ai_summary, 600)}`);

  if (typeof r.user_description === 'string' && r.user_description)
    untrusted.push(`Bio: ${clip(r.user_description, 300)}`);
  const tops = [
    ['hashtags', r.top_5_hashtags],
    ['domains', r.top_5_domains],
    ['URLs', r.top_5_urls, 3],
  ]
    .filter(([, v]) => isRecord(v) && Object.keys(v).length > 0)
    .map(([k, v, max]) => `${k} ${clip(counts(v, typeof max === 'number' ? max : 5), 400)}`);
  if (tops.length) untrusted.push(`Top ${tops.join('; ')}.`);
  const talks = [
    ['quotes', r.freq_quote_who],
    ['replies to', r.freq_reply_who],
    ['retweets', r.freq_retweet_who],
  ]
    .filter(([, v]) => isRecord(v) && Object.keys(v).length > 0)
    .map(([k, v]) => `${k} ${clip(counts(v, 3), 200)}`);
  if (talks.length) untrusted.push(`Talks to: ${talks.join('; ')}.`);
  if (isRecord(r.duplicate_count) && Object.keys(r.duplicate_count).length) {
    const repeated = Object.entries(r.duplicate_count)
      .filter(([, v]) => typeof v === 'number')
      .sort((a, b) => (b[1] as number) - (a[1] as number))
      .slice(0, 3)
      .map(([text, n]) => `"${clip(text, 100)}" ×${num(n)}`);
    untrusted.push(`Repeated posts: ${repeated.join('; ')}.`);
  }
  return { facts, untrusted };
}
