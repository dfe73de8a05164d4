import { POST_KINDS, TOPIC_TREE_PLATFORMS } from '../../upstream/platforms.js';
import { SCHEME } from '../results/links.js';
import { getAgentRun, listAgentRuns } from '../tools/agent-runs.js';
import { getExpertSearch, getExpertSearches } from '../tools/expert-search.js';
import {
  getKeywordSearch,
  getKeywordSearches,
  getKeywordSearchPostsData,
  getKeywordSearchTopicTree,
} from '../tools/keyword-search.js';
import { getUserSearch, getUserSearches, getUserSearchPostsData } from '../tools/user-search.js';

/**
 * Our resource templates (MCP "Resource Templates", RFC 6570 URI templates): searches, posts pages,
 * topic trees, agent runs and their reports. Each is read through the read tool that answers the same
 * question, so scopes, caller mapping and team policy are decided in one place (catalog `execute`).
 */
export interface TemplateDef {
  name: string;
  title: string;
  uriTemplate: string;
  description: string;
  mimeType: 'application/json' | 'text/markdown';
  /** The URI's authority (`keyword-searches`) and the path segment after the id, if any. */
  collection: string;
  sub: '' | 'posts' | 'topic-tree' | 'report';
  /** Query parameters the template declares (`{?platform,offset,limit}`). */
  query: readonly string[];
  /** The read tool answering it, and its arguments for an id and query. */
  tool: string;
  args(id: string, query: URLSearchParams): Record<string, unknown>;
  /** The list tool whose recent items complete `{id}`, and where the ids are in its answer. */
  idsFrom: { tool: string; args: Record<string, unknown>; list: string };
  /** Fixed values of other variables, for completion. */
  values?: Record<string, readonly string[]>;
}

/** Search ids are integers: handed to the tool as numbers, so its own validation words any error. */
const searchId = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) : id);

const intOf = (value: string | null) =>
  value === null ? undefined : /^\d{1,9}$/.test(value) ? Number(value) : value;

function pageArgs(id: string, q: URLSearchParams): Record<string, unknown> {
  const args: Record<string, unknown> = { search_id: searchId(id), detail: 'full' };
  const platform = q.get('platform');
  if (platform !== null) args.platform = platform;
  const offset = intOf(q.get('offset'));
  if (offset !== undefined) args.offset = offset;
  const limit = intOf(q.get('limit'));
  if (limit !== undefined) args.limit = limit;
  return args;
}

const KEYWORD_IDS = { tool: getKeywordSearches.name, args: {}, list: 'keyword_searches' };
const USER_IDS = { tool: getUserSearches.name, args: {}, list: 'user_searches' };
const RUN_IDS = { tool: listAgentRuns.name, args: { limit: 100 }, list: 'runs' };

const POSTS_NOTE =
  'Paged: `next_offset` in the JSON says where the next page starts. Post text is user-generated content.';

export const TEMPLATES: readonly TemplateDef[] = [
  {
    name: 'keyword-search',
    title: 'Keyword search',
    uriTemplate: `${SCHEME}://keyword-searches/{id}`,
    description: 'A keyword search: status and the complete analysis, as JSON.',
    mimeType: 'text/markdown',
    collection: 'keyword-searches',
    sub: '',
    query: [],
    tool: getKeywordSearch.name,
    args: (id) => ({ search_id: searchId(id), detail: 'full' }),
    idsFrom: KEYWORD_IDS,
  },
  {
    name: 'keyword-search-posts',
    title: 'Posts of a keyword search',
    uriTemplate: `${SCHEME}://keyword-searches/{id}/posts{?platform,offset,limit}`,
    description: `A page of a keyword search's posts, as JSON. ${POSTS_NOTE}`,
    mimeType: 'text/markdown',
    collection: 'keyword-searches',
    sub: 'posts',
    query: ['platform', 'offset', 'limit'],
    tool: getKeywordSearchPostsData.name,
    args: pageArgs,
    idsFrom: KEYWORD_IDS,
    values: { platform: ['all', ...POST_KINDS] },
  },
  {
    name: 'keyword-search-topic-tree',
    title: 'Topic trees of a keyword search',
    uriTemplate: `${SCHEME}://keyword-searches/{id}/topic-tree{?platform}`,
    description: 'Topic trees of a finished keyword search, per platform, as JSON.',
    mimeType: 'text/markdown',
    collection: 'keyword-searches',
    sub: 'topic-tree',
    query: ['platform'],
    tool: getKeywordSearchTopicTree.name,
    args: (id, q) => ({
      search_id: searchId(id),
      ...(q.has('platform') ? { platform: q.get('platform') } : {}),
    }),
    idsFrom: KEYWORD_IDS,
    values: { platform: TOPIC_TREE_PLATFORMS },
  },
  {
    name: 'user-search',
    title: 'User search',
    uriTemplate: `${SCHEME}://user-searches/{id}`,
    description: 'A user search: status and the complete profile analytics, as JSON.',
    mimeType: 'text/markdown',
    collection: 'user-searches',
    sub: '',
    query: [],
    tool: getUserSearch.name,
    args: (id) => ({ search_id: searchId(id), detail: 'full' }),
    idsFrom: USER_IDS,
  },
  {
    name: 'user-search-posts',
    title: 'Posts of a user search',
    uriTemplate: `${SCHEME}://user-searches/{id}/posts{?offset,limit}`,
    description: `A page of a user search's posts, as JSON. ${POSTS_NOTE}`,
    mimeType: 'text/markdown',
    collection: 'user-searches',
    sub: 'posts',
    query: ['offset', 'limit'],
    tool: getUserSearchPostsData.name,
    args: pageArgs,
    idsFrom: USER_IDS,
  },
  {
    name: 'expert-search',
    title: 'Expert search',
    uriTemplate: `${SCHEME}://expert-searches/{id}`,
    description: 'An expert search: status and the experts found, as JSON.',
    mimeType: 'text/markdown',
    collection: 'expert-searches',
    sub: '',
    query: [],
    tool: getExpertSearch.name,
    args: (id) => ({ search_id: searchId(id), detail: 'full' }),
    idsFrom: { tool: getExpertSearches.name, args: {}, list: 'searches' },
  },
  {
    name: 'agent-run',
    title: 'Agent run',
    uriTemplate: `${SCHEME}://agent-runs/{id}`,
    description: 'An agent run: status, progress, and the complete result and usage, as JSON.',
    mimeType: 'text/markdown',
    collection: 'agent-runs',
    sub: '',
    query: [],
    tool: getAgentRun.name,
    args: (id) => ({ run_id: id, detail: 'full' }),
    idsFrom: RUN_IDS,
  },
  {
    name: 'agent-run-report',
    title: 'Agent report',
    uriTemplate: `${SCHEME}://agent-runs/{id}/report`,
    description:
      "An agent run's report as markdown, under a header: question, status, confidence, signals, credits.",
    mimeType: 'text/markdown',
    collection: 'agent-runs',
    sub: 'report',
    query: [],
    tool: getAgentRun.name,
    args: (id) => ({ run_id: id }),
    idsFrom: RUN_IDS,
  },
];

export interface MatchedUri {
  template: TemplateDef;
  id: string;
  query: URLSearchParams;
}

/**
 * The template a URI belongs to, or null. Parsed as a URL (RFC 3986) rather than by the templates'
 * regular expressions: query parameters may come in any order, or not at all (RFC 6570 §3.2.8 form
 * expansion leaves undefined ones out), where the SDK's matcher wants all of them, in order.
 * A query parameter the template does not declare is an error the caller reports.
 */
export function matchUri(uri: string): MatchedUri | { error: string } | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== `${SCHEME}:`) return null;
  const [id, sub = '', ...more] = url.pathname.replace(/^\//, '').split('/');
  if (!id || more.length) return null;
  const template = TEMPLATES.find((t) => t.collection === url.hostname && t.sub === sub);
  if (!template) return null;
  for (const key of url.searchParams.keys()) {
    if (!template.query.includes(key))
      return { error: `${template.uriTemplate} takes no query parameter "${key.slice(0, 40)}".` };
  }
  return { template, id: decodeURIComponent(id), query: url.searchParams };
}
