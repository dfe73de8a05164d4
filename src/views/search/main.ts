import '../common/base.css';
import './style.css';
import { type ToolResult, ViewBridge } from '../common/bridge.js';
import { dayOf, el, integer, isRecord, message } from '../common/dom.js';
import { applyHostContext } from '../common/theme.js';
import { platformBars, type Series, timeline } from './charts.js';
import {
  aggregate,
  emotionClass,
  type Post,
  readSearch,
  SENTIMENTS,
  type SearchModel,
  toPost,
} from './data.js';
import { postList, voiceList } from './lists.js';

/** Posts read through the host for the charts: pages of this size, at most this many pages. */
const PAGE = 200;
const MAX_PAGES = 10;

const view = document.getElementById('view') as HTMLElement;
let input: Record<string, unknown> = {};
let shown = 0;

const bridge = new ViewBridge(
  { name: 'social-intel-search', version: '1.0.0' },
  {
    toolInput: (args) => {
      input = args;
    },
    toolResult: (result) => show(result),
    toolCancelled: () =>
      view.replaceChildren(message('note', 'The search was cancelled before it answered.')),
    hostContext: applyHostContext,
  },
);
const open = (url: string) => void bridge.openLink(url).catch(() => {});

function textOf(result: ToolResult): string {
  return (result.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('\n');
}

function show(result: ToolResult): void {
  const run = ++shown;
  if (result.isError) {
    view.replaceChildren(message('problem', textOf(result) || 'The tool answered with an error.'));
    return;
  }
  const model = readSearch(result.structuredContent, bridge.hostContext.toolInfo?.tool?.name);
  if (!model) {
    view.replaceChildren(
      message(
        'problem',
        'This view draws keyword and user searches, and this result is not one. The text answer has everything it holds.',
      ),
    );
    return;
  }
  view.replaceChildren(...header(model), ...overview(model), ...postList(model, open), ...voiceList(model));
  if (model.completed && !model.failed) void loadPosts(model, run);
}

function rangeText(model: SearchModel, from?: string, to?: string): string | null {
  const start = dayOf(input.start_date);
  const end = dayOf(input.end_date);
  if (start || end) return `Requested ${start ?? 'the default start'} to ${end ?? 'today'}`;
  if (model.range) return `Collected ${model.range.from} to ${model.range.to}`;
  if (from && to) return `Posts dated ${from} to ${to}`;
  return null;
}

function header(model: SearchModel): HTMLElement[] {
  const what = model.kind === 'user' ? `@${model.query.replace(/^@/, '')}` : model.query;
  const label = model.kind === 'user' ? `User search ${model.searchId}` : `Keyword search ${model.searchId}`;
  const state = model.failed
    ? `failed: ${model.statusText ?? 'no reason given'}`
    : model.completed
      ? model.status
      : `still ${model.status} (${model.percentage ?? 0}%)`;
  const nodes: HTMLElement[] = [
    el('h1', {}, what),
    el('p', { class: 'meta' }, `${label}${model.platform ? ` · ${model.platform}` : ''} · ${state}`),
    el('p', { class: 'meta', id: 'range' }, rangeText(model) ?? ''),
  ];
  for (const line of model.profile) nodes.push(el('p', { class: 'profile' }, line));
  if (!model.completed) {
    const again = el('button', { type: 'button' }, 'Check again');
    again.addEventListener('click', () => {
      again.disabled = true;
      const tool = model.kind === 'user' ? 'get_user_search' : 'get_keyword_search';
      bridge
        .callTool(tool, { search_id: model.searchId })
        .then(show)
        .catch((error: Error) => {
          again.disabled = false;
          again.after(message('problem', `Could not check: ${error.message}`));
        });
    });
    nodes.push(el('p', {}, again));
  }
  return nodes;
}

function overview(model: SearchModel): HTMLElement[] {
  const nodes: HTMLElement[] = [];
  const platforms = Object.keys(model.postCounts);
  if (platforms.length) {
    nodes.push(
      el('h2', {}, 'Posts by platform'),
      platformBars(`Posts collected per platform`, platforms, [
        {
          name: 'posts',
          className: 'ct-series-count',
          values: platforms.map((p) => model.postCounts[p] ?? 0),
        },
      ]),
    );
  }
  const labelled = Object.entries(model.platformSentiment);
  if (labelled.length) {
    nodes.push(
      el(
        'p',
        { class: 'labels' },
        'Overall sentiment: ',
        ...labelled.flatMap(([platform, label]) => [
          el('span', { class: 'badge' }, `${platform}: ${label}`),
          ' ',
        ]),
      ),
    );
  }
  nodes.push(el('section', { id: 'detail', 'aria-live': 'polite' }));
  if (model.breakouts.length) {
    nodes.push(
      el('h2', {}, 'Breakout moments'),
      el(
        'ul',
        { class: 'plain breakouts' },
        ...model.breakouts.map((b) =>
          el(
            'li',
            {},
            el('span', { class: 'marker', 'aria-hidden': 'true' }),
            el('strong', {}, b.day),
            b.height !== undefined ? ` (relevance ${b.height})` : '',
            b.summary ? ` — ${b.summary}` : '',
          ),
        ),
      ),
    );
  }
  return nodes;
}

/** Reads the search's posts through the host (the posts tool, paged) for sentiment, emotions, days. */
async function loadPosts(model: SearchModel, run: number): Promise<void> {
  const detail = document.getElementById('detail') as HTMLElement;
  if (!bridge.capabilities.serverTools) {
    detail.replaceChildren(
      message(
        'note',
        'This host does not let views read more posts, so sentiment, emotions and the timeline are in the text answer only.',
      ),
    );
    return;
  }
  detail.replaceChildren(message('note', 'Reading the posts…'));
  const tool = model.kind === 'user' ? 'get_user_search_posts_data' : 'get_keyword_search_posts_data';
  const all: Post[] = [];
  let offset: number | undefined = 0;
  let total: number | undefined;
  try {
    for (let page = 0; page < MAX_PAGES && offset !== undefined; page++) {
      const result = await bridge.callTool(tool, { search_id: model.searchId, limit: PAGE, offset });
      if (result.isError) throw new Error(textOf(result));
      const content = result.structuredContent;
      if (!isRecord(content) || !Array.isArray(content.posts)) throw new Error('the posts page had no posts');
      for (const p of content.posts) {
        const post = toPost(p, model.platform);
        if (post) all.push(post);
      }
      total = typeof content.total === 'number' ? content.total : total;
      offset = typeof content.next_offset === 'number' ? content.next_offset : undefined;
    }
  } catch (error) {
    if (run !== shown) return;
    detail.replaceChildren(message('problem', `The posts could not be read: ${(error as Error).message}`));
    return;
  }
  if (run !== shown) return;
  const breakoutDays = model.breakouts.map((b) => b.day);
  const agg = aggregate(all, Object.keys(model.postCounts), breakoutDays);
  const range = document.getElementById('range');
  if (range) range.textContent = rangeText(model, agg.from, agg.to) ?? '';
  const nodes: HTMLElement[] = [];
  if (agg.platforms.length) {
    const sentimentSeries: Series[] = SENTIMENTS.map((s) => ({
      name: s,
      className: `ct-series-${s}`,
      values: agg.platforms.map((p) => agg.sentiment[p]?.[s] ?? 0),
    }));
    const emotionSeries: Series[] = agg.emotions.map((e) => ({
      name: e,
      className: `ct-series-${emotionClass(e)}`,
      values: agg.platforms.map((p) => agg.emotion[p]?.[e] ?? 0),
    }));
    nodes.push(
      el('h2', {}, 'Sentiment by platform'),
      platformBars('Posts per sentiment, by platform', agg.platforms, sentimentSeries),
      el('h2', {}, 'Emotions by platform'),
      platformBars('Posts per emotion, by platform', agg.platforms, emotionSeries),
    );
  }
  if (agg.days.length) {
    nodes.push(el('h2', {}, 'Volume over time'), timeline(agg.days, agg.perDay, new Set(breakoutDays)));
  }
  const counted = total !== undefined && total > all.length ? ` (the first ${all.length} of ${total})` : '';
  nodes.push(el('p', { class: 'note' }, `From ${integer.format(all.length)} posts${counted}.`));
  detail.replaceChildren(...nodes);
  bridge.reportSize();
}

bridge.connect().catch((error: Error) => {
  view.replaceChildren(message('problem', `No host answered: ${error.message}`));
});
