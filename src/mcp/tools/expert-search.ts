import { z } from 'zod';
import type { ExpertSearchDetails } from '../../upstream/schemas.js';
import { expertOutput } from '../results/experts.js';
import { waitFor, whyUnfinished } from '../waiting/wait.js';
import { compact, detailArg, pageArg, searchIdArg } from './common.js';
import { expertOutputSchema, searchRecord } from './outputs.js';
import { CREATE, defineTool, type ProgressUpdate, READ, type ToolDef } from './types.js';

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

export const submitExpertSearch = defineTool({
  name: 'submit_expert_search',
  title: 'Find experts',
  summary: 'Find experts matching a plain-language description and wait for their profiles and contacts.',
  description:
    'Finds experts with the described expertise and waits: titles, contacts, why they match. Needs the producer permission; costs 1 search credit.',
  scope: 'searches:write',
  toolset: 'experts',
  input: z.strictObject({
    query: z.string().min(1).max(500).describe('The expertise wanted, e.g. "virologists in West Africa".'),
    detail: detailArg.optional(),
  }),
  output: expertOutputSchema,
  annotations: CREATE,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { create: 'expert_search' },
  waits: true,
  async run(args, ctx) {
    const created = await ctx.upstream.createExpertSearch(
      ctx.creds,
      { query: args.query },
      { signal: ctx.signal },
    );
    // The result is made in a continuation of the wait: this function does not stay suspended while
    // the search runs (issue 18: heap per waiting call). Its closures keep the id, not the record.
    const id = created.id;
    return waitFor(ctx, {
      key: `expert_search:${id}`,
      initial: { ...created, status: 'running' } as ExpertSearchDetails,
      poll: (signal) => ctx.upstream.getExpertSearch(ctx.creds, id, { signal }),
      isDone: expertSearchEnded,
      progress: expertSearchProgress,
      maxWaitMs: ctx.options.searchMaxWaitMs,
    }).then((outcome) => {
      const detail = args.detail ?? 'summary';
      if (outcome.kind === 'done') return expertOutput(outcome.record, true, detail);
      const why = whyUnfinished(outcome, 'search');
      return expertOutput(
        outcome.record,
        false,
        detail,
        `${why} Call get_expert_search with search_id ${id} later.`,
      );
    });
  },
});

export const getExpertSearch = defineTool({
  name: 'get_expert_search',
  title: 'Get an expert search',
  summary: 'Status and (when completed) the experts found by one expert search.',
  description: 'Reads one expert search: status, and the experts once completed. Free; does not wait.',
  scope: 'searches:read',
  toolset: 'experts',
  input: z.strictObject({ search_id: searchIdArg, detail: detailArg.optional() }),
  output: expertOutputSchema,
  annotations: READ,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { read: 'expert_search', idArg: 'search_id' },
  async run(args, ctx) {
    const record = await ctx.upstream.getExpertSearch(ctx.creds, args.search_id, { signal: ctx.signal });
    const done = record.status === 'completed' || record.status === 'failed';
    const detail = args.detail ?? 'summary';
    return done
      ? expertOutput(record, true, detail)
      : expertOutput(record, false, detail, 'Call get_expert_search again in a little while.');
  },
});

export const getExpertSearches = defineTool({
  name: 'get_expert_searches',
  title: 'List expert searches',
  summary: 'List expert searches of this account, 100 per page.',
  description: 'Lists expert searches of this account (id, query, status, dates). Free.',
  scope: 'searches:read',
  toolset: 'experts',
  input: z.strictObject({ page: pageArg.optional(), show: z.enum(EXPERT_STATUSES).optional() }),
  output: z.looseObject({ searches: z.array(searchRecord) }),
  annotations: READ,
  forbiddenMeansProducer: true,
  team: { list: 'expert_search' },
  async run(args, ctx) {
    const list = await ctx.upstream.listExpertSearches(ctx.creds, compact(args), { signal: ctx.signal });
    const items = Array.isArray(list.searches) ? list.searches : [];
    return { data: { ...list, searches: items }, text: `${items.length} expert search(es).`, json: true };
  },
});

export const expertSearchTools: ToolDef[] = [submitExpertSearch, getExpertSearch, getExpertSearches];
