import { z } from 'zod';
import {
  DEFAULT_KEYWORD_PLATFORMS,
  TOPIC_TREE_PLATFORMS,
  upstreamPostsFilter,
} from '../../upstream/platforms.js';
import { searchListOutput } from '../results/lists.js';
import { postsPageOutput } from '../results/posts-page.js';
import { POSTS_LIMIT_DEFAULT } from '../results/result-output.js';
import { topicTreeOutput } from '../results/topic-trees.js';
import {
  compact,
  dateArg,
  detailArg,
  KEYWORD_PLATFORMS,
  keywordPostsInput,
  maxPostArg,
  pageArg,
  SEARCH_STATUSES,
  searchIdArg,
  showArg,
  truncationOutput,
} from './common.js';
import { listedJobs } from './listed-jobs.js';
import { daysBefore, forceNewArg, startThenSettle, waitArg } from './long-work.js';
import { keywordSearchOutput, postsPageOutput as postsOutput, searchRecord } from './output-schemas.js';
import { getSearch, settleSearch } from './search-common.js';
import { CREATE, defineTool, type LongWork, READ, type ToolDef } from './types.js';
import { emptyPage, stillRunning, unfinishedSearch } from './unfinished.js';

const NOT_FOUND = { what: 'keyword search', listTool: 'get_keyword_searches' };

const submitInput = z.strictObject({
  query: z.string().min(1).max(500).describe('Words, #tags, @users; AND, OR, NOT, (), "phrases".'),
  start_date: dateArg.optional().describe('Default: a week ago.'),
  end_date: dateArg.optional().describe('Default: today.'),
  platforms: z
    .array(z.enum(KEYWORD_PLATFORMS))
    .min(1)
    .refine((p) => !p.includes('linkedin') || p.length === 1, {
      message: 'linkedin must be searched alone: send ["linkedin"] in its own call',
    })
    .optional()
    .describe(`Default ${DEFAULT_KEYWORD_PLATFORMS.join(', ')}; linkedin only alone.`),
  max_post: maxPostArg.optional().describe('Per platform, default 100.'),
  detail: detailArg.optional(),
  force_new: forceNewArg,
});

type SubmitArgs = z.output<typeof submitInput>;

const DEFAULT_PLATFORMS = ['twitter', 'reddit', 'bluesky', 'youtube'];

/** A keyword search as long work (./long-work.ts): created, then waited for. */
const keywordWork: LongWork<SubmitArgs> = {
  kind: 'keyword_search',
  limit: 'searchMaxWaitMs',
  identity: (a, today) => ({
    query: a.query,
    start_date: a.start_date ?? daysBefore(today, 7),
    end_date: a.end_date ?? today,
    platforms: [...(a.platforms ?? DEFAULT_PLATFORMS)].sort(),
    max_post: a.max_post ?? 100,
  }),
  async start(args, ctx) {
    const { detail: _detail, force_new: _forceNew, ...body } = args;
    const { id } = await ctx.upstream.createKeywordSearch(ctx.creds, compact(body), { signal: ctx.signal });
    return { id, fresh: true };
  },
  find: async (args, ctx) => {
    const list = await ctx.upstream.listKeywordSearches(
      ctx.creds,
      { show: 'all', page: 1 },
      { signal: ctx.signal },
    );
    return listedJobs(list.keyword_searches, (s) => s.query === args.query);
  },
  settle: (job, args, ctx, waitMs) =>
    settleSearch(ctx, 'keyword', job, {
      // LinkedIn searches return posts only: no analysis results will come.
      resultsExpected: !(args.platforms?.length === 1 && args.platforms[0] === 'linkedin'),
      detail: args.detail,
      waitMs,
    }),
};

export const submitKeywordSearch = defineTool({
  name: 'submit_keyword_search',
  title: 'Run a keyword search',
  summary: 'Search social platforms for a keyword, hashtag or username query and wait for the full analysis.',
  description:
    'Searches social platforms over a date range and waits for the analysis: sentiment, interactions, coordination, breakouts, top posts. 1 search credit.',
  scope: 'searches:write',
  toolset: 'searches',
  spendsCredits: true,
  view: 'search',
  input: submitInput,
  output: keywordSearchOutput,
  annotations: CREATE,
  notFound: NOT_FOUND,
  team: { create: 'keyword_search' },
  waits: true,
  work: keywordWork as LongWork,
  run: (args, ctx) => startThenSettle('submit_keyword_search', keywordWork, args, ctx),
});

export const getKeywordSearch = defineTool({
  name: 'get_keyword_search',
  title: 'Get a keyword search',
  summary: 'Status, progress and (when finished) the full analysis of one keyword search.',
  description: 'One keyword search: status, or its analysis and top posts once finished. Free.',
  scope: 'searches:read',
  toolset: 'searches',
  spendsCredits: false,
  view: 'search',
  input: z.strictObject({ search_id: searchIdArg, detail: detailArg.optional(), wait: waitArg }),
  output: keywordSearchOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'keyword_search', idArg: 'search_id' },
  waits: 'on request',
  async run(args, ctx) {
    const record = await ctx.upstream.getKeywordSearch(ctx.creds, args.search_id, { signal: ctx.signal });
    return getSearch(ctx, 'keyword', record, args);
  },
});

export const getKeywordSearches = defineTool({
  name: 'get_keyword_searches',
  title: 'List keyword searches',
  summary: 'List keyword searches of this account, newest first, 100 per page.',
  description: 'Lists keyword searches of this account (id, query, status, dates). Free.',
  scope: 'searches:read',
  toolset: 'searches',
  spendsCredits: false,
  input: z.strictObject({ page: pageArg.optional(), show: showArg(SEARCH_STATUSES).optional() }),
  output: z.looseObject({
    keyword_searches: z.array(searchRecord),
    page: z.number().optional(),
    total: z.number().optional(),
  }),
  annotations: READ,
  team: { list: 'keyword_search' },
  async run(args, ctx) {
    const list = await ctx.upstream.listKeywordSearches(ctx.creds, compact(args), { signal: ctx.signal });
    const items = Array.isArray(list.keyword_searches) ? list.keyword_searches : [];
    return searchListOutput(
      'keyword',
      { ...list, keyword_searches: items },
      items,
      Number(list.page ?? args.page ?? 1),
    );
  },
});

export const getKeywordSearchTopicTree = defineTool({
  name: 'get_keyword_search_topic_tree',
  title: 'Topic trees of a keyword search',
  summary: 'Topic trees (themes and sub-themes weighted by posts) of a finished keyword search.',
  description:
    'Topic trees of a finished keyword search, per platform: nested themes weighted by posts. Free.',
  scope: 'searches:read',
  toolset: 'posts',
  spendsCredits: false,
  view: 'topic-tree',
  input: z.strictObject({
    search_id: searchIdArg,
    platform: z.enum(TOPIC_TREE_PLATFORMS).optional().describe('Default: every platform.'),
  }),
  output: z.looseObject({
    search_id: z.number(),
    data: z.array(
      z.looseObject({ name: z.string().optional(), children: z.array(z.looseObject({})).optional() }),
    ),
    _truncated: truncationOutput,
  }),
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'keyword_search', idArg: 'search_id' },
  async run(args, ctx) {
    const tree = await ctx.upstream.getKeywordSearchTopicTree(ctx.creds, args.search_id, args.platform, {
      signal: ctx.signal,
    });
    // Only `data`: the top-level copy of the first tree is deprecated upstream.
    const trees = Array.isArray(tree.data) ? tree.data : [];
    const running = trees.length ? null : await unfinishedSearch(ctx, 'keyword', args.search_id);
    if (running)
      return stillRunning(ctx, 'keyword', running, 'its topic trees', {
        search_id: args.search_id,
        data: [],
      });
    return topicTreeOutput(args.search_id, trees);
  },
});

/** Shared by both posts tools: search_id, platform, offset, limit, detail. */
export const getKeywordSearchPostsData = defineTool({
  name: 'get_keyword_search_posts_data',
  title: 'Posts of a keyword search',
  summary: 'The raw posts a keyword search collected, per platform, paged with limit and offset.',
  description: "A page of a keyword search's posts; next_offset says where the next starts. Free.",
  scope: 'searches:read',
  toolset: 'posts',
  spendsCredits: false,
  input: keywordPostsInput,
  output: postsOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'keyword_search', idArg: 'search_id' },
  async run(args, ctx) {
    const platform = args.platform ?? 'all';
    // Kinds upstream's filter lacks (threads, youtube_comment) are read with every post and picked here.
    const filter = platform === 'all' ? undefined : upstreamPostsFilter(platform);
    const body = await ctx.upstream.getKeywordSearchPosts(ctx.creds, args.search_id, filter, {
      signal: ctx.signal,
    });
    const running = body.posts.length ? null : await unfinishedSearch(ctx, 'keyword', args.search_id);
    if (running) return stillRunning(ctx, 'keyword', running, 'its posts', emptyPage(args, platform));
    return postsPageOutput({
      kind: 'keyword',
      searchId: args.search_id,
      platform,
      posts: body.posts,
      offset: args.offset ?? 0,
      limit: args.limit ?? POSTS_LIMIT_DEFAULT,
      detail: args.detail ?? 'summary',
      maxTokens: ctx.options.maxResultTokens,
    });
  },
});

export const keywordSearchTools: ToolDef[] = [
  submitKeywordSearch,
  getKeywordSearch,
  getKeywordSearches,
  getKeywordSearchTopicTree,
  getKeywordSearchPostsData,
];
