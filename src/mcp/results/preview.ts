import type { SearchDetails } from '../../upstream/schemas.js';
import { isRecord } from './format.js';
import { fromCompact, type PostSummary } from './posts.js';

/**
 * A running search's preview posts (`tweet_preview`), as summaries: each post's platform from the
 * record (a user search's own platform; a keyword search's preview names none, so each post's link
 * tells, posts.ts:fromCompact), its figures by the one definition of interactions (posts.ts), and a
 * key that tells the same post apart in a later read, so an answer can leave out what was shown.
 */
export interface PreviewPost {
  key: string;
  post: PostSummary;
}

/** What an answer shows of a preview: the posts not shown before, and how many were left out. */
export interface PreviewShown {
  posts: PostSummary[];
  earlier: number;
}

function keyOf(post: unknown, summary: PostSummary): string {
  if (summary.url) return summary.url;
  const p = isRecord(post) ? post : {};
  return `${String(p.n ?? '')}\u0000${String(p.t ?? '')}\u0000${summary.text.slice(0, 80)}`;
}

export function previewOf(kind: 'keyword' | 'user', record: SearchDetails): PreviewPost[] {
  const platform = kind === 'user' ? (record.platform ?? undefined) : undefined;
  return (record.tweet_preview ?? []).map((p) => {
    const post = fromCompact(platform, p);
    return { key: keyOf(p, post), post };
  });
}
