import { Hono } from 'hono';
import { z } from 'zod';
import {
  AGENT_CREDITS_DEFAULT,
  AGENT_CREDITS_MAX,
  AGENT_CREDITS_MIN,
  KEYWORD_PLATFORMS,
  LABEL_MAX_LENGTH,
  MAX_POST_MAX,
  MAX_POST_MIN,
  QUESTION_MAX_LENGTH,
  RUN_MODE_DEFAULT,
  RUN_MODES,
  RUN_STATUSES,
  TIME_WINDOW_DEFAULT,
  TIME_WINDOW_PATTERN,
} from '../constants.js';
import { readJson, UUID_PATTERN } from '../http.js';
import {
  cancelRun,
  createRun,
  isTerminal,
  requeue,
  runRecordView,
  runSummaryView,
  settleRun,
} from '../state/runs.js';
import type { Store } from '../state/store.js';
import type { RunRecord } from '../state/types.js';
import type { Json } from '../synthetic/shapes.js';
import {
  type AgentEnv,
  agentAuth,
  badUuid,
  detail,
  insufficientCredits,
  jsonInvalid,
  pageSchema,
  zodInvalid,
} from './common.js';

const createSchema = z.object({
  question: z.string().trim().min(1).max(QUESTION_MAX_LENGTH),
  mode: z.enum(RUN_MODES).default(RUN_MODE_DEFAULT),
  time_window: z.string().regex(TIME_WINDOW_PATTERN).default(TIME_WINDOW_DEFAULT),
  available_credits: z
    .number()
    .int()
    .min(AGENT_CREDITS_MIN)
    .max(AGENT_CREDITS_MAX)
    .default(AGENT_CREDITS_DEFAULT),
  platforms: z.array(z.enum(KEYWORD_PLATFORMS)).min(1).nullish(),
  max_post: z.number().int().min(MAX_POST_MIN).max(MAX_POST_MAX).nullish(),
  parent_run_id: z.string().regex(UUID_PATTERN, 'Input should be a valid UUID').nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

const listSchema = pageSchema.extend({
  status: z.enum(RUN_STATUSES).optional(),
  user_id: z.string().min(1).optional(),
});

const patchSchema = z
  .object({ pinned: z.boolean().optional(), label: z.string().max(LABEL_MAX_LENGTH).optional() })
  .refine((b) => b.pinned !== undefined || b.label !== undefined, {
    message: 'At least one of pinned or label is required',
  });

export function runRoutes(store: Store): Hono<AgentEnv> {
  const app = new Hono<AgentEnv>();
  const auth = agentAuth(store);

  /** Runs visible through the API: this credential's, made through the API or a schedule, not discarded. */
  const visible = (token: string, id: string): RunRecord | undefined => {
    const run = store.runs.get(id.toLowerCase());
    if (run === undefined || run.token !== token || run.origin === 'outside' || run.discarded)
      return undefined;
    settleRun(store, run);
    return run;
  };

  app.post('/api/v1/runs', auth, async (c) => {
    const body = await readJson(c);
    if (!body.ok) return jsonInvalid(c, body);
    const parsed = createSchema.safeParse(body.value ?? {});
    if (!parsed.success) return zodInvalid(c, parsed.error, 'body');
    const cred = c.get('cred');
    const parent = parsed.data.parent_run_id ?? null;
    if (parent !== null && visible(cred.token, parent) === undefined)
      return detail(c, 404, 'Parent run not found');
    const need = parsed.data.available_credits;
    if (cred.credits < need) return insufficientCredits(c, need, cred.credits);
    const run = createRun(store, {
      token: cred.token,
      userId: c.get('userId'),
      input: {
        question: parsed.data.question,
        mode: parsed.data.mode,
        timeWindow: parsed.data.time_window,
        availableCredits: need,
        platforms: parsed.data.platforms ?? null,
        maxPost: parsed.data.max_post ?? null,
        parentRunId: parent === null ? null : parent.toLowerCase(),
        metadata: (parsed.data.metadata ?? null) as Json,
      },
      origin: 'api',
    });
    return c.json(runRecordView(run, store.now()), 201);
  });

  app.get('/api/v1/runs', auth, (c) => {
    const parsed = listSchema.safeParse(c.req.query());
    if (!parsed.success) return zodInvalid(c, parsed.error, 'query');
    const { status, user_id: userId, limit, offset } = parsed.data;
    const token = c.get('cred').token;
    const runs = store
      .ownedBy(token)
      .runs.filter(
        (r) =>
          r.origin !== 'outside' &&
          !r.discarded &&
          (status === undefined || r.status === status) &&
          (userId === undefined || r.userId === userId),
      )
      .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
    return c.json({
      runs: runs.slice(offset, offset + limit).map(runSummaryView),
      total: runs.length,
      limit,
      offset,
    });
  });

  app.get('/api/v1/runs/:id', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'run_id', id);
    if (bad !== null) return bad;
    const run = visible(c.get('cred').token, id);
    if (run === undefined) return detail(c, 404, 'Run not found');
    return c.json(runRecordView(run, store.now()));
  });

  app.patch('/api/v1/runs/:id', auth, async (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'run_id', id);
    if (bad !== null) return bad;
    const body = await readJson(c);
    if (!body.ok) return jsonInvalid(c, body);
    const run = visible(c.get('cred').token, id);
    if (run === undefined) return detail(c, 404, 'Run not found');
    const parsed = patchSchema.safeParse(body.value ?? {});
    if (!parsed.success) return zodInvalid(c, parsed.error, 'body');
    if (parsed.data.pinned !== undefined) run.pinned = parsed.data.pinned;
    if (parsed.data.label !== undefined) run.label = parsed.data.label;
    run.updatedAt = store.now();
    return c.json({ id: run.id, pinned: run.pinned, label: run.label });
  });

  app.post('/api/v1/runs/:id/cancel', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'run_id', id);
    if (bad !== null) return bad;
    const run = visible(c.get('cred').token, id);
    if (run === undefined) return detail(c, 404, 'Run not found');
    if (isTerminal(run)) return detail(c, 422, `Run is already ${run.status} and cannot be cancelled`);
    cancelRun(store, run);
    return c.json({ id: run.id, status: 'failed', cancelled: true });
  });

  app.post('/api/v1/runs/:id/rerun', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'run_id', id);
    if (bad !== null) return bad;
    const cred = c.get('cred');
    const run = visible(cred.token, id);
    if (run === undefined) return detail(c, 404, 'Run not found');
    if (run.status === 'completed') return detail(c, 422, 'Run is completed and cannot be rerun');
    if (cred.credits < run.availableCredits)
      return insufficientCredits(c, run.availableCredits, cred.credits);
    requeue(store, run);
    return c.json({ id: run.id, status: 'pending' }, 202);
  });

  app.delete('/api/v1/runs/:id', auth, (c) => {
    const id = c.req.param('id');
    const bad = badUuid(c, 'run_id', id);
    if (bad !== null) return bad;
    const run = visible(c.get('cred').token, id);
    if (run === undefined) return detail(c, 404, 'Run not found');
    if (!isTerminal(run))
      return detail(c, 422, `Run is ${run.status}; only completed or failed runs can be deleted`);
    run.discarded = true;
    run.updatedAt = store.now();
    return c.json({ id: run.id, discarded: true });
  });

  return app;
}
