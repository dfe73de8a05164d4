import { z } from 'zod';
import type { ExpertSearchDetails } from '../../upstream/schemas.js';
import { expertOutput } from '../results/experts.js';
import { searchListOutput } from '../results/lists.js';
import type { Detail } from '../results/result-output.js';
import { waitFor, whyUnfinished } from '../waiting/wait.js';
import { compact, detailArg, pageArg, searchIdArg, showArg } from './common.js';
import { listedJobs } from './listed-jobs.js';
import {
  announce,
  forceNewArg,
  nextCall,
  outputOf,
  seenState,
  startThenSettle,
  waitArg,
  waitBudget,
} from './long-work.js';
import { expertOutputSchema, searchRecord } from './output-schemas.js';
import {
  CREATE,
  defineTool,
  type LongWork,
  type ProgressUpdate,
  READ,
  type Settled,
  type StartedJob,
  type ToolContext,
  type ToolDef,
} from './types.js';

const NOT_FOUND = { what: 'expert search', listTool: 'get_expert_searches' };
const EXPERT_STATUSES = ['all', 'running', 'completed', 'failed'] as const;

/** Module functions, not closures made for each waiting call. */
const expertSearchEnded = (r: ExpertSearchDetails) => r.status === 'completed' || r.status === 'failed';

function expertSearchProgress(r: ExpertSearchDetails): ProgressUpdate {
  return {
    percentage: expertSearchEnded(r) ? 100 : 50,
    phase: r.status ?? 'running',
    message: r.status === 'completed' ? 'Expert search completed' : 'Searching for experts',
  };
}

const submitInput = z.strictObject({
  query: z.string().min(1).max(500).describe('The expertise wanted, e.g. "virologists in West Africa".'),
  detail: detailArg.optional(),
  force_new: forceNewArg,
});

type SubmitArgs = z.output<typeof submitInput>;

/**
 * Settles an expert search: waits up to `waitMs`, then its experts (or where it stands). The result is
 * made in a continuation of the wait; its closures keep the id, not the record (heap per waiting call).
 */
function settleExpertSearch(
  ctx: ToolContext,
  job: StartedJob,
  detail: Detail,
  waitMs: number,
): Promise<Settled> {
  const id = Number(job.id);
  return waitFor(ctx, {
    key: `expert_search:${id}`,
    initial:
      (job.initial as ExpertSearchDetails | undefined) ?? ({ id, status: 'running' } as ExpertSearchDetails),
    poll: (signal, deadline) => ctx.upstream.getExpertSearch(ctx.creds, id, { signal, deadline }),
    isDone: expertSearchEnded,
    progress: expertSearchProgress,
    ...waitBudget(ctx, waitMs),
    announce: announce('expert_search', id, waitMs, job.fresh === true),
  }).then((outcome) => {
    const failed = outcome.kind === 'done' && outcome.record.status === 'failed';
    if (outcome.kind === 'done' || outcome.kind === 'timeout')
      void ctx.reuse?.seen('expert_search', id, seenState(outcome, failed));
    const ended = outcome.kind;
    if (ended === 'done') return { output: expertOutput(outcome.record, true, detail), ended, failed };
    const why = whyUnfinished(outcome, 'search');
    const next = nextCall('get_expert_search', 'search_id', id, waitMs);
    return { output: expertOutput(outcome.record, false, detail, `${why} ${next}`), ended };
  });
}

/** An expert search as long work (./long-work.ts): created, then waited for. */
const expertWork: LongWork<SubmitArgs> = {
  kind: 'expert_search',
  limit: 'searchMaxWaitMs',
  identity: (a) => ({ query: a.query }),
  async start(args, ctx) {
    const created = await ctx.upstream.createExpertSearch(
      ctx.creds,
      { query: args.query },
      { signal: ctx.signal },
    );
    return { id: created.id, initial: { ...created, status: 'running' }, fresh: true };
  },
  find: async (args, ctx) => {
    const list = await ctx.upstream.listExpertSearches(
      ctx.creds,
      { show: 'all', page: 1 },
      { signal: ctx.signal },
    );
    return listedJobs(list.searches, (s) => s.query === args.query);
  },
  settle: (job, args, ctx, waitMs) => settleExpertSearch(ctx, job, args.detail ?? 'summary', waitMs),
};

export const submitExpertSearch = defineTool({
  name: 'submit_expert_search',
  title: 'Find experts',
  summary: 'Find experts matching a plain-language description and wait for their profiles and contacts.',
  description:
    'Finds experts with the described expertise and waits: titles, contacts, why they match. Needs producer permission; 1 search credit.',
  scope: 'searches:write',
  toolset: 'experts',
  spendsCredits: true,
  input: submitInput,
  output: expertOutputSchema,
  annotations: CREATE,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { create: 'expert_search' },
  waits: true,
  work: expertWork as LongWork,
  run: (args, ctx) => startThenSettle('submit_expert_search', expertWork, args, ctx),
});

export const getExpertSearch = defineTool({
  name: 'get_expert_search',
  title: 'Get an expert search',
  summary: 'Status and (when completed) the experts found by one expert search.',
  description: 'Reads one expert search: status, and the experts once completed. Free.',
  scope: 'searches:read',
  toolset: 'experts',
  spendsCredits: false,
  input: z.strictObject({ search_id: searchIdArg, detail: detailArg.optional(), wait: waitArg }),
  output: expertOutputSchema,
  annotations: READ,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { read: 'expert_search', idArg: 'search_id' },
  waits: 'on request',
  async run(args, ctx) {
    const record = await ctx.upstream.getExpertSearch(ctx.creds, args.search_id, { signal: ctx.signal });
    const detail = args.detail ?? 'summary';
    const waitMs = ctx.options.searchMaxWaitMs;
    if (expertSearchEnded(record)) return expertOutput(record, true, detail);
    if (args.wait)
      return settleExpertSearch(ctx, { id: record.id, initial: record }, detail, waitMs).then(outputOf);
    return expertOutput(record, false, detail, nextCall('get_expert_search', 'search_id', record.id, waitMs));
  },
});

export const getExpertSearches = defineTool({
  name: 'get_expert_searches',
  title: 'List expert searches',
  summary: 'List expert searches of this account, 100 per page.',
  description: 'Lists expert searches of this account (id, query, status, dates). Free.',
  scope: 'searches:read',
  toolset: 'experts',
  spendsCredits: false,
  input: z.strictObject({ page: pageArg.optional(), show: showArg(EXPERT_STATUSES).optional() }),
  output: z.looseObject({ searches: z.array(searchRecord) }),
  annotations: READ,
  forbiddenMeansProducer: true,
  team: { list: 'expert_search' },
  async run(args, ctx) {
    const list = await ctx.upstream.listExpertSearches(ctx.creds, compact(args), { signal: ctx.signal });
    const items = Array.isArray(list.searches) ? list.searches : [];
    return searchListOutput(
      'expert',
      { ...list, searches: items },
      items,
      Number(list.page ?? args.page ?? 1),
    );
  },
});

export const expertSearchTools: ToolDef[] = [submitExpertSearch, getExpertSearch, getExpertSearches];
