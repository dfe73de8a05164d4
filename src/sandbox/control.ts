import { type Context, Hono } from 'hono';
import { z } from 'zod';
import type { Clock } from './clock.js';
import { iso } from './clock.js';
import {
  QUESTION_MAX_LENGTH,
  RUN_MODE_DEFAULT,
  SYNTH_POSTS_LIMIT,
  TIME_WINDOW_DEFAULT,
} from './constants.js';
import { faultSchema } from './faults.js';
import { firstIssue, readJson } from './http.js';
import { scheduleView } from './schedules.js';
import { SPEEDS } from './speed.js';
import { createRun, runRecordView } from './state/runs.js';
import { expertDetails, searchDetails } from './state/search-views.js';
import type { Store } from './state/store.js';
import type { Credential, SearchRecord } from './state/types.js';
import { deliveryView } from './webhooks.js';

const credentialSchema = z
  .object({
    credits: z.number().int().min(0).optional(),
    producer: z.boolean().optional(),
    speed: z.enum(SPEEDS).nullable().optional(),
    name: z.string().min(1).max(200).optional(),
    synth_posts: z.number().int().min(1).max(SYNTH_POSTS_LIMIT).nullable().optional(),
  })
  .strict();

const clockSchema = z
  .object({
    freeze: z.boolean().optional(),
    advance_ms: z.number().int().min(0).optional(),
    set: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

const outsideRunSchema = z
  .object({
    token: z.string(),
    user_id: z.string().min(1).default('outside-user'),
    question: z.string().min(1).max(QUESTION_MAX_LENGTH).default('A run created in the web app'),
  })
  .strict();

/** What the search was asked for (dates after defaults were applied), for tests to compare. */
function searchInput(s: SearchRecord) {
  return {
    user_id: s.userId,
    platforms: s.platforms,
    start_date: s.startDate,
    end_date: s.endDate,
    max_post: s.maxPost,
  };
}

function credentialView(c: Credential) {
  return {
    token: c.token,
    name: c.name,
    credits: c.credits,
    producer: c.producer,
    speed: c.speed,
    return_url: c.returnUrl,
    synth_posts: c.synthPosts,
    created_at: iso(c.createdAt),
  };
}

/**
 * The control API under /__sandbox/ (sandbox only): credentials, faults, clock, speed, webhook
 * deliveries, request logs and records. No authentication: the sandbox listens on loopback.
 */
export function controlRoutes(store: Store, clock: Clock, settle: () => void): Hono {
  const app = new Hono();
  const bad = (c: Context, message: string, status: 400 | 404 = 400) => c.json({ error: message }, status);

  app.get('/', (c) =>
    c.json({
      endpoints: [
        'POST /__sandbox/credentials',
        'GET /__sandbox/credentials/{token}',
        'PATCH /__sandbox/credentials/{token}',
        'GET /__sandbox/credentials/{token}/requests',
        'DELETE /__sandbox/credentials/{token}/requests',
        'GET /__sandbox/credentials/{token}/creates',
        'GET /__sandbox/faults',
        'PUT /__sandbox/faults',
        'DELETE /__sandbox/faults',
        'GET /__sandbox/clock',
        'POST /__sandbox/clock',
        'GET /__sandbox/speed',
        'PUT /__sandbox/speed',
        'GET /__sandbox/webhooks',
        'POST /__sandbox/outside-runs',
      ],
    }),
  );

  app.post('/credentials', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const parsed = credentialSchema.safeParse(body.value ?? {});
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    const cred = store.createCredential(parsed.data);
    return c.json(credentialView(cred), 201);
  });

  app.get('/credentials/:token', (c) => {
    settle();
    const cred = store.credentials.get(c.req.param('token'));
    if (cred === undefined) return bad(c, 'Unknown credential', 404);
    const now = store.now();
    const owned = store.ownedBy(cred.token);
    return c.json({
      ...credentialView(cred),
      searches: {
        keyword: owned.keyword.map((s) => ({ ...searchDetails(s, now), ...searchInput(s) })),
        user: owned.user.map((s) => ({ ...searchDetails(s, now), ...searchInput(s) })),
        expert: owned.expert.map((s) => ({ ...expertDetails(s, now), user_id: s.userId })),
      },
      runs: owned.runs.map((r) => ({ ...runRecordView(r, now), origin: r.origin, discarded: r.discarded })),
      schedules: [...owned.schedules].map(scheduleView),
    });
  });

  app.patch('/credentials/:token', async (c) => {
    const cred = store.credentials.get(c.req.param('token'));
    if (cred === undefined) return bad(c, 'Unknown credential', 404);
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const parsed = credentialSchema.safeParse(body.value ?? {});
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    if (parsed.data.credits !== undefined) cred.credits = parsed.data.credits;
    if (parsed.data.producer !== undefined) cred.producer = parsed.data.producer;
    if (parsed.data.speed !== undefined) cred.speed = parsed.data.speed;
    if (parsed.data.name !== undefined) cred.name = parsed.data.name;
    if (parsed.data.synth_posts !== undefined) cred.synthPosts = parsed.data.synth_posts;
    return c.json(credentialView(cred));
  });

  app.get('/credentials/:token/requests', (c) => {
    const token = c.req.param('token');
    if (!store.credentials.has(token)) return bad(c, 'Unknown credential', 404);
    return c.json({ requests: store.requests.get(token) ?? [] });
  });

  // Counted from the records themselves (kept for the process's life), not the bounded request log.
  app.get('/credentials/:token/creates', (c) => {
    const token = c.req.param('token');
    if (!store.credentials.has(token)) return bad(c, 'Unknown credential', 404);
    const owned = store.ownedBy(token);
    const counts = {
      keyword: owned.keyword.length,
      user: owned.user.length,
      expert: owned.expert.length,
      runs: owned.runs.filter((r) => r.origin === 'api').length,
    };
    return c.json({ ...counts, total: counts.keyword + counts.user + counts.expert + counts.runs });
  });

  app.delete('/credentials/:token/requests', (c) => {
    const token = c.req.param('token');
    if (!store.credentials.has(token)) return bad(c, 'Unknown credential', 404);
    store.requests.delete(token);
    return c.json({ requests: [] });
  });

  app.get('/faults', (c) => c.json(store.faults.list()));

  app.put('/faults', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const raw = (body.value ?? {}) as Record<string, unknown>;
    const { token, ...rest } = typeof raw === 'object' && raw !== null ? raw : {};
    if (token !== undefined && (typeof token !== 'string' || !store.credentials.has(token))) {
      return bad(c, 'Unknown credential', 404);
    }
    const parsed = faultSchema.safeParse(rest);
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    store.faults.set((token as string | undefined) ?? null, parsed.data);
    return c.json(store.faults.list());
  });

  app.delete('/faults', (c) => {
    const token = c.req.query('token');
    if (token === undefined) store.faults.clearAll();
    else store.faults.clear(token);
    return c.json(store.faults.list());
  });

  const clockView = () => ({ now: iso(clock.now()), frozen: clock.isFrozen(), speed: store.speed });

  app.get('/clock', (c) => c.json(clockView()));

  app.post('/clock', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const parsed = clockSchema.safeParse(body.value ?? {});
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    // Settle before moving so everything due at the old "now" happens at its own time.
    settle();
    if (parsed.data.freeze === true) clock.freeze();
    if (parsed.data.set !== undefined) clock.set(Date.parse(parsed.data.set));
    if (parsed.data.advance_ms !== undefined) clock.advance(parsed.data.advance_ms);
    if (parsed.data.freeze === false) clock.resume();
    settle();
    return c.json(clockView());
  });

  app.get('/speed', (c) => c.json({ speed: store.speed }));

  app.put('/speed', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const parsed = z.object({ speed: z.enum(SPEEDS) }).safeParse(body.value);
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    store.speed = parsed.data.speed;
    return c.json({ speed: store.speed });
  });

  app.get('/webhooks', (c) => {
    settle();
    const token = c.req.query('token');
    return c.json({
      deliveries: store.deliveries.filter((d) => token === undefined || d.token === token).map(deliveryView),
    });
  });

  app.post('/outside-runs', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return bad(c, `Malformed JSON body: ${body.message}`);
    const parsed = outsideRunSchema.safeParse(body.value ?? {});
    if (!parsed.success) return bad(c, firstIssue(parsed.error));
    if (!store.credentials.has(parsed.data.token)) return bad(c, 'Unknown credential', 404);
    const run = createRun(store, {
      token: parsed.data.token,
      userId: parsed.data.user_id,
      input: {
        question: parsed.data.question,
        mode: RUN_MODE_DEFAULT,
        timeWindow: TIME_WINDOW_DEFAULT,
        availableCredits: 1,
        platforms: null,
        maxPost: null,
        parentRunId: null,
        metadata: null,
      },
      origin: 'outside',
    });
    return c.json({ id: run.id, status: run.status }, 201);
  });

  return app;
}
