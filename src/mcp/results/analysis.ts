import { POST_KINDS, VIEWS_FOR_INTERACTIONS } from '../../upstream/platforms.js';
import { clip } from './fence.js';
import { counts, day, isRecord, num } from './format.js';
import { byKindOrder } from './posts.js';

/**
 * A keyword search's analysis (`results`, docs/upstream.md) as a few compact markdown lines: what a
 * model needs first, in a few hundred tokens. Every line is optional: a field the upstream left out
 * is simply not mentioned, and a platform the search did not cover is never named (the analysis's
 * coordination verdicts cover four platforms whatever was searched). Facts (figures and labels) are
 * returned apart from text upstream wrote from the posts (sentiment summaries, breakout summaries,
 * verdicts' context) and from user-generated names (hashtags, URLs), which go in the fence.
 */
export interface AnalysisLines {
  facts: string[];
  untrusted: string[];
}

/** "bluesky 33,914, twitter 24,017; youtube views 3,550,089": YouTube's figure is its videos' views. */
function interactionLine(results: Record<string, unknown>): string | null {
  const interaction = isRecord(results.interaction) ? results.interaction : null;
  if (!interaction) return null;
  const { [VIEWS_FOR_INTERACTIONS]: views, ...others } = interaction;
  const parts = [counts(others, 10)].filter(Boolean);
  if (views !== undefined) parts.push(`${VIEWS_FOR_INTERACTIONS} views ${num(views)}`);
  return parts.length ? `Interactions: ${parts.join('; ')}.` : null;
}

function sentiment(results: Record<string, unknown>): { fact: string | null; notes: string[] } {
  const labels = isRecord(results.sentiment) ? results.sentiment : {};
  const summary = isRecord(results.summary) ? results.summary : {};
  const named = Object.keys(labels).sort(byKindOrder);
  const fact = named.length
    ? `Sentiment: ${named.map((p) => `${p} ${clip(typeof labels[p] === 'string' ? labels[p] : 'unclassified', 40)}`).join(', ')}.`
    : null;
  const notes = Object.keys(summary)
    .sort(byKindOrder)
    .filter((p) => typeof summary[p] === 'string' && summary[p] !== '')
    .map((p) => `${p}: ${clip(summary[p], 200)}`);
  return { fact, notes: notes.length ? [`Sentiment notes: ${notes.join(' | ')}`] : [] };
}

/** "score 56/100; a few accounts dominate on bluesky, reddit (not on twitter); …", searched platforms only. */
function coordination(results: Record<string, unknown>, platforms: ReadonlySet<string>) {
  const c = results.indicator_of_coordination;
  if (!isRecord(c)) return { fact: null, notes: [] as string[] };
  const flagged: string[] = [];
  const clear: string[] = [];
  const others: string[] = [];
  const notes: string[] = [];
  for (const [key, value] of Object.entries(c)) {
    if (!isRecord(value) || typeof value.verdict !== 'boolean') continue;
    const platform = /^frequent_posters_(\w+)$/.exec(key)?.[1];
    if (platform) {
      if (platforms.has(platform)) (value.verdict ? flagged : clear).push(platform);
      continue;
    }
    // Other verdicts name their platform first (twitter_new_account_percent).
    const about = /^([a-z]+)_/.exec(key)?.[1];
    if (about && !platforms.has(about) && (POST_KINDS as readonly string[]).includes(about)) continue;
    const label = key.replace(/_/g, ' ');
    others.push(`${label}: ${value.verdict ? 'flagged' : 'not flagged'}`);
    if (typeof value.context === 'string' && value.context)
      notes.push(`${label}: ${clip(value.context, 160).replace(/\.$/, '')}`);
  }
  const parts: string[] = [];
  if (c.coordination_score !== undefined) parts.push(`score ${num(c.coordination_score)}/100`);
  if (flagged.length || clear.length) {
    const not = clear.length ? ` (not on ${clear.sort(byKindOrder).join(', ')})` : '';
    parts.push(`a few accounts dominate on ${flagged.sort(byKindOrder).join(', ') || 'no platform'}${not}`);
  }
  parts.push(...others);
  return {
    fact: parts.length ? `Coordination: ${parts.join('; ')}.` : null,
    notes: notes.length ? [`Coordination notes: ${notes.join('; ')}.`] : [],
  };
}

function breakouts(results: Record<string, unknown>) {
  const moments = Array.isArray(results.breakout_moment) ? results.breakout_moment.filter(isRecord) : [];
  if (moments.length === 0) return { fact: null, notes: [] as string[] };
  const shown = moments.slice(0, 3);
  const fact = `Breakout moments: ${shown.map((m) => `${day(m.time)} (relevance ${num(m.height)})`).join(', ')}.`;
  const said = shown
    .filter((m) => typeof m.summary === 'string' && m.summary)
    .map((m) => `${day(m.time)}: ${clip(m.summary, 160).replace(/\.$/, '')}`);
  return { fact, notes: said.length ? [`Breakout notes: ${said.join('; ')}.`] : [] };
}

function metricLine(results: Record<string, unknown>, platforms: ReadonlySet<string>): string | null {
  const metric = isRecord(results.metric) && isRecord(results.metric.twitter) ? results.metric.twitter : null;
  if (!metric || !platforms.has('twitter')) return null;
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

/** The analysis's lines; `platforms`: the platforms the search covered, the only ones named. */
export function analysisLines(results: Record<string, unknown>, platforms: readonly string[]): AnalysisLines {
  const covered = new Set(platforms);
  const facts: string[] = [];
  const untrusted: string[] = [];
  const mood = sentiment(results);
  const coordinated = coordination(results, covered);
  const moments = breakouts(results);
  for (const line of [
    interactionLine(results),
    mood.fact,
    coordinated.fact,
    moments.fact,
    metricLine(results, covered),
  ]) {
    if (line) facts.push(line);
  }
  untrusted.push(...mood.notes, ...coordinated.notes, ...moments.notes);
  const co = coOccurrenceLine(results);
  if (co) untrusted.push(co);
  return { facts, untrusted };
}
