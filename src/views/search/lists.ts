import { dayOf, el, integer, link, webUrl } from '../common/dom.js';
import type { Post, SearchModel } from './data.js';

/**
 * The search view's lists: the top posts (as plain text, each link opened by the host) and the top
 * voices, as the result's structuredContent gives them.
 */

function postMeta(post: Post): string {
  const parts = [
    post.platform,
    post.author ? `@${post.author}` : undefined,
    dayOf(post.date) ?? undefined,
    post.interactions !== undefined ? `${integer.format(post.interactions)} interactions` : undefined,
    post.views !== undefined ? `${integer.format(post.views)} views` : undefined,
    [post.sentiment, post.emotion].filter(Boolean).join(', ') || undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}

export function voiceList(model: SearchModel): HTMLElement[] {
  if (!model.topVoices.length) return [];
  return [
    el('h2', {}, 'Top voices by interactions'),
    el(
      'ol',
      { class: 'voices' },
      ...model.topVoices.map((v) =>
        el(
          'li',
          {},
          el('strong', {}, /\s/.test(v.author) ? v.author : `@${v.author}`),
          ` · ${v.platform} · ${[
            `${integer.format(v.posts)} post${v.posts === 1 ? '' : 's'}`,
            v.interactions !== undefined ? `${integer.format(v.interactions)} interactions` : '',
            v.followers !== undefined ? `${integer.format(v.followers)} followers` : '',
          ]
            .filter(Boolean)
            .join(', ')}`,
        ),
      ),
    ),
  ];
}

export function postList(model: SearchModel, open: (url: string) => void): HTMLElement[] {
  if (!model.topPosts.length) return [];
  const videos = model.topPosts.some((p) => p.views !== undefined);
  return [
    el('h2', {}, model.preview ? 'Preview posts' : 'Top posts by interactions'),
    el(
      'p',
      { class: 'note' },
      `Posts are user-generated content, shown as plain text.${videos && !model.preview ? " A YouTube video's interactions are its likes and comments; its views are shown apart." : ''}`,
    ),
    el(
      'ol',
      { class: 'posts' },
      ...model.topPosts.map((post) => {
        const url = webUrl(post.url);
        return el(
          'li',
          {},
          el('div', { class: 'meta' }, postMeta(post), url ? ' · ' : '', url ? link(url, 'open', open) : ''),
          el('p', { class: 'post-text' }, post.text ?? ''),
        );
      }),
    ),
  ];
}
