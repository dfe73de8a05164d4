import { clip } from './fence.js';
import { counts, day, isRecord, num } from './format.js';

/**
 * A keyword search's analysis (`results`, upstream-api.md) as a few compact markdown lines: what a
 * model needs first, in a few hundred tokens. Every line is optional: a field the upstream left out
 * is simply not mentioned. Lines holding user-generated names (hashtags, URLs, handles) are returned
 * apart, for the untrusted-content fence.
 */
export interface AnalysisLines {
  facts: string[];
  untrusted: string[];
}

const PLATFORM_ORDER = ['twitter', 'reddit', 'bluesky', 'youtube', 'youtube_comment'];

function sortedPlatforms(map: Record<string, unknown>): string[] {
  const rank = (p: string) => {
    const i = PLATFORM_ORDER.indexOf(p);
    return i < 0 ? PLATFORM_ORDER.length : i;
  };
  return Object.keys(map).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Posts per platform in `results.posts`, e.g. {twitter: 25, youtube_comment: 23}. */
export function postCounts(results: Record<string, unknown>): Record<string, number> {
  const posts = isRecord(results.posts) ? results.posts : {};
  const out: Record<string, number> = {};
  for (const platform of sortedPlatforms(posts)) {
    const list = posts[platform];
    if (Array.isArray(list)) out[platform] = list.length;
  }
  return out;
}

function sentimentLines(results: Record<string, unknown>): string[] {
  const sentiment = isRecord(results.sentiment) ? results.sentiment : {};
  const summary = isRecord(results.summary) ? results.summary : {};
  return sortedPlatforms({ ...sentiment, ...summary }).map((platform) => {
    const label = typeof sentiment[platform] === 'string' ? sentiment[platform] : 'unclassified';
    const said = typeof summary[platform] === 'string' ? clip(summary[platform], 200) : '';
    // The summary usually opens with the label ("Mixed sentiment on twitter: …"): say it once.
    const text = said.toLowerCase().startsWith(String(label).toLowerCase())
      ? said
      : `${label}${said ? ` — ${said}` : ''}`;
    return `- ${platform}: ${text}`;
  });
}

/** "score 56/100; few accounts dominate on bluesky, reddit (not on twitter); …" */
function coordinationLine(results: Record<string, unknown>): string | null {
  const c = results.indicator_of_coordination;
  if (!isRecord(c)) return null;
  const flagged: string[] = [];
  const clear: string[] = [];
  const others: string[] = [];
  for (const [key, value] of Object.entries(c)) {
    if (!isRecord(value) || typeof value.verdict !== 'boolean') continue;
    const platform = /^frequent_posters_(\w+)$/.exec(key)?.[1];
    if (platform) (value.verdict ? flagged : clear).push(platform);
    else {
      const context =
        typeof value.context === 'string' ? ` (${clip(value.context, 160).replace(/\.$/, '')})` : '';
      others.push(`${key.replace(/_/g, ' ')}: ${value.verdict ? 'flagged' : 'not flagged'}${context}`);
    }
  }
  const parts: string[] = [];
  if (c.coordination_score !== undefined) parts.push(`score ${num(c.coordination_score)}/100`);
  if (flagged.length || clear.length) {
    const not = clear.length ? ` (not on ${clear.join(', ')})` : '';
    parts.push(`a few accounts dominate on ${flagged.join(', ') || 'no platform'}${not}`);
  }
  parts.push(...others);
  return parts.length ? `Coordination: ${parts.join('; ')}.` : null;
}

function breakoutLine(results: Record<string, unknown>): string | null {
  const moments = Array.isArray(results.breakout_moment) ? results.breakout_moment.filter(isRecord) : [];
  if (moments.length === 0) return null;
  const items = moments
    .slice(0, 3)
    .map((m) => `${day(m.time)} (relevance ${num(m.height)}): ${clip(m.summary, 160).replace(/\.$/, '')}`);
  return `Breakout moments: ${items.join('; ')}.`;
}

function metricLine(results: Record<string, unknown>): string | null {
  const metric = isRecord(results.metric) && isRecord(results.metric.twitter) ? results.metric.twitter : null;
  if (!metric) return null;
  const parts: string[] = [];
  if (metric.avg_post_per_user !== undefined)
    parts.push(`${num(metric.avg_post_per_user)} posts per account`);
  if (metric.percent_post_from_top_10_percent_user !== undefined)
    parts.push(`${num(metric.percent_post_from_top_10_percent_user)}% of posts from the top 10% of accounts`);
  if (metric.account_created_after_2021 !== undefined)
    parts.push(`${num(metric.account_created_after_2021)} account(s) created after 2021`);
  return parts.length ? `Twitter metrics: ${parts.join(', ')}.` : null;
}

/** Co-occurring hashtags and URLs grouped by name, most frequent first: "#a 92 (twitter 25, …)". */
function coOccurrenceLine(results: Record<string, unknown>, max = 8): string | null {
  const items = Array.isArray(results.co_occurrence) ? results.co_occurrence.filter(isRecord) : [];
  if (items.length === 0) return null;
  const byName = new Map<string, { total: number; platforms: Record<string, number> }>();
  for (const item of items) {
    const name = String(item.name ?? '');
    const entry = byName.get(name) ?? { total: 0, platforms: {} };
    const count = Number(item.count) || 0;
    entry.total += count;
    const platform = String(item.platform ?? '?');
    entry.platforms[platform] = (entry.platforms[platform] ?? 0) + count;
    byName.set(name, entry);
  }
  const top = [...byName.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, max);
  const rendered = top.map(([name, e]) => `${clip(name, 80)} ${num(e.total)} (${counts(e.platforms, 8)})`);
  return `Co-occurring hashtags and URLs: ${rendered.join('; ')}.`;
}

export function analysisLines(results: Record<string, unknown>): AnalysisLines {
  const facts: string[] = [];
  const interaction = isRecord(results.interaction) ? results.interaction : null;
  if (interaction) facts.push(`Interactions: ${counts(interaction, 10)}.`);
  const sentiment = sentimentLines(results);
  if (sentiment.length) facts.push('Sentiment:', ...sentiment);
  for (const line of [coordinationLine(results), breakoutLine(results), metricLine(results)]) {
    if (line) facts.push(line);
  }
  const untrusted: string[] = [];
  const co = coOccurrenceLine(results);
  if (co) untrusted.push(co);
  const metric = isRecord(results.metric) && isRecord(results.metric.twitter) ? results.metric.twitter : null;
  if (metric && Array.isArray(metric.top_10_user) && metric.top_10_user.length) {
    untrusted.push(
      `Most active twitter accounts: ${metric.top_10_user.map((u) => `@${clip(u, 60)}`).join(', ')}.`,
    );
  }
  return { facts, untrusted };
}
