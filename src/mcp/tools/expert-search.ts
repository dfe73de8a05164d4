import { z } from 'zod';
import type { ExpertSearchDetails } from '../../upstream/schemas.js';
import { waitFor, whyUnfinished } from '../wait.js';
import { compact, pageArg, pendingFields, searchIdArg, truncationOutput } from './common.js';
import { CREATE, defineTool, READ, type ToolDef, type ToolOutput } from './types.js';

const NOT_FOUND = { what: 'expert search', listTool: 'get_expert_searches' };
const EXPERT_STATUSES = ['all', 'running', 'completed', 'failed'] as const;

const expertOutput = z.looseObject({
  search_id: z.number().describe('Id of the expert search.'),
  completed: pendingFields.completed,
  next_step: pendingFields.next_step,
  status: z.string().nullish().describe('running, completed or failed.'),
  query: z.string().nullish(),
  search_url: z.string().nullish(),
  expert_results: z
    .array(z.unknown())
    .nullish()
    .describe(
      'When completed: experts with name, username, title, location, languages, contact, expertise keywords and why they match.',
    ),
  _truncated: truncationOutput,
});

function expertResult(record: ExpertSearchDetails, completed: boolean, nextStep?: string): ToolOutput {
  const data: Record<string, unknown> = { search_id: record.id, completed, ...record };
  if (nextStep) data.next_step = nextStep;
  const count = Array.isArray(record.expert_results) ? record.expert_results.length : 0;
  const summary = !completed
    ? `Expert search ${record.id} is still ${record.status ?? 'running'}. ${nextStep ?? ''}`
    : record.status === 'failed'
      ? `Expert search ${record.id} failed.`
      : `Expert search ${record.id} completed with ${count} expert(s).`;
  return { data, summary: summary.trim(), untrusted: true };
}

export const submitExpertSearch = defineTool({
  name: 'submit_expert_search',
  title: 'Find experts',
  summary: 'Find experts matching a plain-language description and wait for their profiles and contacts.',
  description:
    'Searches for experts matching a natural-language description of the expertise wanted (e.g. "epidemiologists who study vaccine hesitancy in West Africa") ' +
    'and waits until done, returning each expert with title, location, languages, contact details, expertise keywords and why they match. ' +
    'Requires an API key with the producer permission; costs one search credit. If the wait limit is reached, the id is returned: call get_expert_search later.',
  scope: 'searches:write',
  input: z.strictObject({
    query: z
      .string()
      .min(1)
      .max(500)
      .describe('Plain-language description of the expertise wanted (1–500 characters).'),
  }),
  output: expertOutput,
  annotations: CREATE,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { create: 'expert_search' },
  async run(args, ctx) {
    const created = await ctx.upstream.createExpertSearch(
      ctx.creds,
      { query: args.query },
      { signal: ctx.signal },
    );
    const outcome = await waitFor(ctx, {
      initial: { ...created, status: 'running' } as ExpertSearchDetails,
      poll: (signal) => ctx.upstream.getExpertSearch(ctx.creds, created.id, { signal }),
      isDone: (r) => r.status === 'completed' || r.status === 'failed',
      progress: (r) => ({
        percentage: r.status === 'completed' || r.status === 'failed' ? 100 : 50,
        phase: r.status ?? 'running',
        message: r.status === 'completed' ? 'Expert search completed' : 'Searching for experts',
      }),
      maxWaitMs: ctx.options.searchMaxWaitMs,
    });
    if (outcome.kind === 'done') return expertResult(outcome.record, true);
    const why = whyUnfinished(outcome, 'search');
    return expertResult(
      outcome.record,
      false,
      `${why} Call get_expert_search with search_id ${created.id} later.`,
    );
  },
});

export const getExpertSearch = defineTool({
  name: 'get_expert_search',
  title: 'Get an expert search',
  summary: 'Status and (when completed) the experts found by one expert search.',
  description:
    'Reads one expert search: status (running, completed, failed) and, once completed, the experts with contact and summary data. Does not wait. Requires the producer permission.',
  scope: 'searches:read',
  input: z.strictObject({ search_id: searchIdArg('expert search') }),
  output: expertOutput,
  annotations: READ,
  notFound: NOT_FOUND,
  forbiddenMeansProducer: true,
  team: { read: 'expert_search', idArg: 'search_id' },
  async run(args, ctx) {
    const record = await ctx.upstream.getExpertSearch(ctx.creds, args.search_id, { signal: ctx.signal });
    const done = record.status === 'completed' || record.status === 'failed';
    return expertResult(record, done, done ? undefined : 'Call get_expert_search again in a little while.');
  },
});

export const getExpertSearches = defineTool({
  name: 'get_expert_searches',
  title: 'List expert searches',
  summary: 'List expert searches of this account, 100 per page.',
  description:
    'Lists the expert searches made with this account (id, query, status, dates). Filter with show (all, running, completed, failed). Requires the producer permission.',
  scope: 'searches:read',
  input: z.strictObject({
    page: pageArg.optional(),
    show: z.enum(EXPERT_STATUSES).optional().describe('Only searches with this status (default all).'),
  }),
  output: z.looseObject({ searches: z.array(z.looseObject({})).optional() }),
  annotations: READ,
  forbiddenMeansProducer: true,
  team: { list: 'expert_search' },
  async run(args, ctx) {
    const list = await ctx.upstream.listExpertSearches(ctx.creds, compact(args), { signal: ctx.signal });
    const items = Array.isArray(list.searches) ? list.searches.length : 0;
    return { data: list, summary: `${items} expert search(es).` };
  },
});

export const expertSearchTools: ToolDef[] = [submitExpertSearch, getExpertSearch, getExpertSearches];
