/**
 * The URIs of our MCP resources (MCP "Resources": any RFC 3986 URI; a custom scheme, since they are
 * read through resources/read, never fetched over HTTP). Tool results link to them (`resource_link`
 * content, MCP 2025-06-18 and later) and the resource templates (RFC 6570) describe them.
 */
export const SCHEME = 'social-intel';

export type SearchKind = 'keyword' | 'user' | 'expert';

const COLLECTION: Record<SearchKind, string> = {
  keyword: 'keyword-searches',
  user: 'user-searches',
  expert: 'expert-searches',
};

export function searchUri(kind: SearchKind, id: number): string {
  return `${SCHEME}://${COLLECTION[kind]}/${id}`;
}

export function postsUri(
  kind: 'keyword' | 'user',
  id: number,
  page: { platform?: string; offset?: number; limit?: number } = {},
): string {
  const query = new URLSearchParams();
  if (page.platform && page.platform !== 'all') query.set('platform', page.platform);
  if (page.offset) query.set('offset', String(page.offset));
  if (page.limit !== undefined) query.set('limit', String(page.limit));
  const q = query.toString();
  return `${searchUri(kind, id)}/posts${q ? `?${q}` : ''}`;
}

export function topicTreeUri(id: number, platform?: string): string {
  return `${searchUri('keyword', id)}/topic-tree${platform ? `?platform=${encodeURIComponent(platform)}` : ''}`;
}

export function runUri(id: string): string {
  return `${SCHEME}://agent-runs/${id}`;
}

export function reportUri(id: string): string {
  return `${runUri(id)}/report`;
}

/** A `resource_link` content item (MCP 2025-06-18 "Resource Links"). */
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  mimeType: string;
  description?: string;
}

export function link(uri: string, name: string, mimeType: string, description?: string): ResourceLink {
  return { type: 'resource_link', uri, name, mimeType, ...(description ? { description } : {}) };
}
