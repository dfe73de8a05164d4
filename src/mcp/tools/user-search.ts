import { z } from 'zod';
import { searchListOutput } from '../results/lists.js';
import { postsPageOutput } from '../results/posts-page.js';
import { POSTS_LIMIT_DEFAULT } from '../results/result-output.js';
import {
  compact,
  dateArg,
  detailArg,
  maxPostArg,
  pageArg,
  SEARCH_STATUSES,
  searchIdArg,
  showArg,
  USER_PLATFORMS,
  userPostsInput,
} from './common.js';
import { listedJobs } from './listed-jobs.js';
import { forceNewArg, monthBefore, startThenSettle, waitArg } from './long-work.js';
import { postsPageOutput as postsOutput, searchRecord, userSearchOutput } from './output-schemas.js';
import { getSearch, settleSearch } from './search-common.js';
import { CREATE, defineTool, type LongWork, READ, type ToolDef } from './types.js';
import { emptyPage, stillRunning, unfinishedSearch } from './unfinished.js';

const NOT_FOUND = { what: 'user search', listTool: 'get_user_searches' };

const submitInput = z.strictObject({
  query: z.string().min(1).max(500).describe('The handle, without @.'),
  platform: z.enum(USER_PLATFORMS).describe('X is twitter.'),
  start_date: dateArg.optional().describe('Default: a month ago.'),
  end_date: dateArg.optional().describe('Default: today.'),
  max_post: maxPostArg.optional().describe('Default 100.'),
  detail: detailArg.optional(),
  force_new: forceNewArg,
});

type SubmitArgs = z.output<typeof submitInput>;

/** A user search as long work (./long-work.ts): created, then waited for. */
const userWork: LongWork<SubmitArgs> = {
  kind: 'user_search',
  limit: 'searchMaxWaitMs',
  identity: (a, today) => ({
    query: a.query,
    platform: a.platform,
    start_date: a.start_date ?? monthBefore(today),
    end_date: a.end_date ?? today,
    max_post: a.max_post ?? 100,
  }),
  async start(args, ctx) {
    const { detail: _detail, force_new: _forceNew, ...body } = args;
    const { id } = await ctx.upstream.createUserSearch(ctx.creds, compact(body), { signal: ctx.signal });
    return { id, fresh: true };
  },
  find: async (args, ctx) => {
    const list = await ctx.upstream.listUserSearches(
      ctx.creds,
      { show: 'all', page: 1 },
      { signal: ctx.signal },
    );
    return listedJobs(list.user_searches, (s) => s.query === args.query);
  },
  settle: (job, args, ctx, waitMs) =>
    settleSearch(ctx, 'user', job, {
      // Profile analytics exist for twitter only.
      resultsExpected: args.platform === 'twitter',
      detail: args.detail,
      waitMs,
    }),
};

export const submitUserSearch = defineTool({
  name: 'submit_user_search',
  title: 'Analyse one account',
  summary:
    'Collect posts and profile analytics for one twitter, facebook or instagram account and wait for the result.',
  description:
    "Collects one account's posts over a date range and waits: profile analytics (twitter only) and top posts. 1 search credit.",
  scope: 'searches:write',
  toolset: 'searches',
  spendsCredits: true,
  view: 'search',
  input: submitInput,
  output: userSearchOutput,
  annotations: CREATE,
  notFound: NOT_FOUND,
  team: { create: 'user_search' },
  waits: true,
  work: userWork as LongWork,
  run: (args, ctx) => startThenSettle('submit_user_search', userWork, args, ctx),
});

export const getUserSearch = defineTool({
  name: 'get_user_search',
  title: 'Get a user search',
  summary: 'Status and (when finished) the profile analytics of one user search.',
  description: 'One user search: status, or its profile analytics and top posts once finished. Free.',
  scope: 'searches:read',
  toolset: 'searches',
  spendsCredits: false,
  view: 'search',
  input: z.strictObject({ search_id: searchIdArg, detail: detailArg.optional(), wait: waitArg }),
  output: userSearchOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'user_search', idArg: 'search_id' },
  waits: 'on request',
  async run(args, ctx) {
    const record = await ctx.upstream.getUserSearch(ctx.creds, args.search_id, { signal: ctx.signal });
    return getSearch(ctx, 'user', record, args);
  },
});

export const getUserSearches = defineTool({
  name: 'get_user_searches',
  title: 'List user searches',
  summary: 'List user (account) searches of this account, 100 per page.',
  description: 'Lists user searches of this account (id, handle, status, dates). Free.',
  scope: 'searches:read',
  toolset: 'searches',
  spendsCredits: false,
  input: z.strictObject({ page: pageArg.optional(), show: showArg(SEARCH_STATUSES).optional() }),
  output: z.looseObject({
    user_searches: z.array(searchRecord),
    page: z.number().optional(),
    total: z.number().optional(),
  }),
  annotations: READ,
  team: { list: 'user_search' },
  async run(args, ctx) {
    const list = await ctx.upstream.listUserSearches(ctx.creds, compact(args), { signal: ctx.signal });
    const items = Array.isArray(list.user_searches) ? list.user_searches : [];
    return searchListOutput(
      'user',
      { ...list, user_searches: items },
      items,
      Number(list.page ?? args.page ?? 1),
    );
  },
});

export const getUserSearchPostsData = defineTool({
  name: 'get_user_search_posts_data',
  title: 'Posts of a user search',
  summary: 'The raw posts a user search collected, paged with limit and offset.',
  description: "A page of a user search's posts; next_offset says where the next starts. Free.",
  scope: 'searches:read',
  toolset: 'posts',
  spendsCredits: false,
  input: userPostsInput,
  output: postsOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  team: { read: 'user_search', idArg: 'search_id' },
  async run(args, ctx) {
    const body = await ctx.upstream.getUserSearchPosts(ctx.creds, args.search_id, { signal: ctx.signal });
    const running = body.posts.length ? null : await unfinishedSearch(ctx, 'user', args.search_id);
    if (running) return stillRunning(ctx, 'user', running, 'its posts', emptyPage(args, 'all'));
    return postsPageOutput({
      kind: 'user',
      searchId: args.search_id,
      platform: 'all',
      posts: body.posts,
      offset: args.offset ?? 0,
      limit: args.limit ?? POSTS_LIMIT_DEFAULT,
      detail: args.detail ?? 'summary',
      maxTokens: ctx.options.maxResultTokens,
    });
  },
});

export const userSearchTools: ToolDef[] = [
  submitUserSearch,
  getUserSearch,
  getUserSearches,
  getUserSearchPostsData,
];
