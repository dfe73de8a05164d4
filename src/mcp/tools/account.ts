import { z } from 'zod';
import { defineTool, READ, type ToolDef, UPDATE } from './types.js';

const setupOutput = z.looseObject({
  return_url: z
    .string()
    .nullish()
    .describe('Webhook URL that receives completed search results (null when unset).'),
  name: z.string().nullish(),
});

const usageOutput = z.looseObject({
  searches_count: z.number().nullish(),
  total_iq_searches_count: z.number().nullish(),
  usage_by_user: z.array(z.looseObject({})).nullish(),
});

export const getIntegrationSetup = defineTool({
  name: 'get_integration_setup',
  title: 'Get the webhook setup',
  summary: 'Show the webhook URL that receives completed search results.',
  description:
    'Returns the integration setup: the webhook URL (return_url) that receives completed search results, and its name.',
  scope: 'account:read',
  input: z.strictObject({}),
  output: setupOutput,
  annotations: READ,
  async run(_args, ctx) {
    const setup = await ctx.upstream.getSetup(ctx.creds, { signal: ctx.signal });
    return {
      data: setup,
      summary: setup.return_url ? `Webhook URL: ${String(setup.return_url)}.` : 'No webhook URL is set.',
    };
  },
});

export const updateIntegrationSetup = defineTool({
  name: 'update_integration_setup',
  title: 'Set the webhook URL',
  summary: 'Set the webhook URL that receives completed search results.',
  description:
    'Sets the webhook URL (return_url): when a search completes, the service POSTs its result (the same JSON as the get tools) to this URL. ' +
    'Must be an http(s) URL of at most 2048 characters.',
  scope: 'account:write',
  input: z.strictObject({
    return_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe('The http(s) URL to receive completed search results (at most 2048 characters).'),
  }),
  output: setupOutput,
  annotations: UPDATE,
  team: { teamWebhook: true },
  async run(args, ctx) {
    const setup = await ctx.upstream.updateSetup(ctx.creds, args.return_url, { signal: ctx.signal });
    return { data: setup, summary: `Webhook URL set to ${String(setup.return_url ?? args.return_url)}.` };
  },
});

function usageSummary(usage: Record<string, unknown>, period: string): string {
  return `Usage ${period}: ${String(usage.searches_count ?? 0)} searches, ${String(usage.total_iq_searches_count ?? 0)} IQ searches.`;
}

export const usage = defineTool({
  name: 'usage',
  title: 'Usage over the last 12 months',
  summary: 'Search counts of the last 12 months, per user.',
  description:
    'Returns search counts of the last 12 months: totals and per user (keyword and user searches, last search date).',
  scope: 'account:read',
  input: z.strictObject({}),
  output: usageOutput,
  annotations: READ,
  async run(_args, ctx) {
    const record = await ctx.upstream.getUsage(ctx.creds, undefined, { signal: ctx.signal });
    return { data: record, summary: usageSummary(record, 'over the last 12 months') };
  },
});

export const getUsageByMonth = defineTool({
  name: 'get_usage_by_month',
  title: 'Usage of one month',
  summary: 'Search counts of one month (YYYY-MM), per user.',
  description:
    'Returns search counts of one calendar month: totals and per user. Month written YYYY-MM, e.g. 2026-03.',
  scope: 'account:read',
  input: z.strictObject({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month written YYYY-MM')
      .describe('The month, written YYYY-MM (e.g. 2026-03).'),
  }),
  output: usageOutput,
  annotations: READ,
  async run(args, ctx) {
    const record = await ctx.upstream.getUsage(ctx.creds, args.month, { signal: ctx.signal });
    return { data: record, summary: usageSummary(record, `in ${args.month}`) };
  },
});

export const accountTools: ToolDef[] = [getIntegrationSetup, updateIntegrationSetup, usage, getUsageByMonth];
