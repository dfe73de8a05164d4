import { z } from 'zod';
import { setupResult, usageResult } from '../results/account.js';
import { defineTool, READ, type ToolDef, UPDATE } from './types.js';

const setupOutput = z.looseObject({
  return_url: z.string().optional().describe('Absent when unset.'),
  name: z.string().optional(),
});

const usageOutput = z.looseObject({
  searches_count: z.number().optional(),
  total_iq_searches_count: z.number().optional(),
  usage_by_user: z.array(z.looseObject({ user: z.string().optional() })).optional(),
});

export const getIntegrationSetup = defineTool({
  name: 'get_integration_setup',
  title: 'Get the webhook setup',
  summary: 'Show the webhook URL that receives completed search results.',
  description: 'Shows the webhook URL (return_url) that receives completed search results. Free.',
  scope: 'account:read',
  toolset: 'account',
  spendsCredits: false,
  input: z.strictObject({}),
  output: setupOutput,
  annotations: READ,
  async run(_args, ctx) {
    const setup = await ctx.upstream.getSetup(ctx.creds, { signal: ctx.signal });
    return setupResult(setup, false);
  },
});

export const updateIntegrationSetup = defineTool({
  name: 'update_integration_setup',
  title: 'Set the webhook URL',
  summary: 'Set the webhook URL that receives completed search results.',
  description: "Sets the webhook URL: every completed search's result is POSTed there.",
  scope: 'account:write',
  toolset: 'account',
  spendsCredits: false,
  input: z.strictObject({
    return_url: z
      .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
      .refine((v) => v.length <= 2048, 'must be at most 2048 characters'),
  }),
  output: setupOutput,
  annotations: UPDATE,
  team: { teamWebhook: true },
  async run(args, ctx) {
    const setup = await ctx.upstream.updateSetup(ctx.creds, args.return_url, { signal: ctx.signal });
    return setupResult({ return_url: args.return_url, ...setup }, true);
  },
});

export const usage = defineTool({
  name: 'usage',
  title: 'Usage, last 12 months',
  summary: 'Search counts of the last 12 months, per user.',
  description: 'Search counts of the last 12 months, in total and per user. Free.',
  scope: 'account:read',
  toolset: 'account',
  spendsCredits: false,
  input: z.strictObject({}),
  output: usageOutput,
  annotations: READ,
  async run(_args, ctx) {
    const record = await ctx.upstream.getUsage(ctx.creds, undefined, { signal: ctx.signal });
    return usageResult(record, 'over the last 12 months', ctx.creds.userId);
  },
});

export const getUsageByMonth = defineTool({
  name: 'get_usage_by_month',
  title: 'Usage of one month',
  summary: 'Search counts of one month (YYYY-MM), per user.',
  description: 'Search counts of one month, in total and per user. Free.',
  scope: 'account:read',
  toolset: 'account',
  spendsCredits: false,
  input: z.strictObject({
    month: z
      .string()
      .refine((v) => /^\d{4}-(0[1-9]|1[0-2])$/.test(v), 'must be a month written YYYY-MM')
      .describe('YYYY-MM.'),
  }),
  output: usageOutput,
  annotations: READ,
  async run(args, ctx) {
    const record = await ctx.upstream.getUsage(ctx.creds, args.month, { signal: ctx.signal });
    return usageResult(record, `in ${args.month}`, ctx.creds.userId);
  },
});

export const accountTools: ToolDef[] = [getIntegrationSetup, updateIntegrationSetup, usage, getUsageByMonth];
