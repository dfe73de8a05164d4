import { Hono } from 'hono';
import { agentHost } from './agent-host/index.js';
import { type Clock, iso, SandboxClock } from './clock.js';
import { AGENT_PREFIX, CONTROL_PREFIX, TICK_INTERVAL_MS, TOKEN_HEADER, USER_HEADER } from './constants.js';
import { controlRoutes } from './control.js';
import { applyRequestFaults, errorBody, type FaultFired, type Host } from './fault-response.js';
import { searchHost } from './search-host/index.js';
import { DEFAULT_SPEED, type Speed } from './speed.js';
import { settleAll } from './state/settle.js';
import { Store } from './state/store.js';
import { type SandboxPersistence, StateFile } from './state-file.js';
import { webhookPoster } from './webhook-post.js';

export interface SandboxAppOptions {
  speed?: Speed;
  /** Injectable clock; defaults to wall time that /__sandbox/clock can freeze and advance. */
  clock?: Clock;
  /** Background tick for schedules and webhooks; tests driving the clock by hand may turn it off. */
  tick?: boolean;
  /** Keep credentials and records in a file across restarts (the gateway's sandbox mode does). */
  persistence?: SandboxPersistence;
  /**
   * Lets webhooks reach loopback and private addresses (never the default: a return_url is anyone's
   * text). For the emulator's own tests, whose receivers listen on loopback.
   */
  webhooksToPrivateAddresses?: boolean;
}

export interface SandboxHandle {
  store: Store;
  clock: Clock;
  /** Brings all time-driven state up to the clock now. */
  settle(): void;
  /** Stops the tick, releases hanging requests and saves the state; call before closing the HTTP server. */
  dispose(): void;
  /** With persistence: whether the state file was restored at start. */
  restored: boolean;
}

export type SandboxApp = Hono & { sandbox: SandboxHandle };

function hostOf(path: string): Host {
  return path === AGENT_PREFIX || path.startsWith(`${AGENT_PREFIX}/`) ? 'agent' : 'search';
}

/**
 * Both upstream hosts in one Hono app: the search host at the root, the agent host under /agent, the control
 * API under /__sandbox. Shares no code with src/upstream, so it catches the client's mistakes instead of
 * repeating them.
 */
export function createSandboxApp(options: SandboxAppOptions = {}): SandboxApp {
  const clock = options.clock ?? new SandboxClock();
  const store = new Store(clock, options.speed ?? DEFAULT_SPEED);
  const inflight = new Set<Promise<void>>();
  const hangs = new Set<() => void>();
  const post = webhookPoster({ privateTargets: options.webhooksToPrivateAddresses === true });
  const settle = () => settleAll(store, inflight, post);
  const stateFile = options.persistence ? new StateFile(store, options.persistence) : null;
  const restored = stateFile?.load() === 'restored';
  const tick =
    options.tick === false
      ? null
      : setInterval(() => {
          settle();
          // Runs move on with time (and schedules fire new ones): keep the file up with them.
          if (store.activeRuns.size > 0) stateFile?.changed();
        }, TICK_INTERVAL_MS);
  tick?.unref();

  const app = new Hono();

  // Any request but a read may change the state (and reads settle it): write it soon after.
  if (stateFile) {
    app.use('*', async (c, next) => {
      await next();
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') stateFile.changed();
    });
  }

  app.use('*', async (c, next) => {
    const path = c.req.path;
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return next();
    const host = hostOf(path);
    const token = c.req.header(TOKEN_HEADER) ?? null;
    const relPath = host === 'agent' ? path.slice(AGENT_PREFIX.length) || '/' : path;
    const known = token !== null && store.credentials.has(token);
    const entry = {
      method: c.req.method,
      host,
      path: relPath,
      query: new URL(c.req.url).search,
      user_id: c.req.header(USER_HEADER) ?? null,
      traceparent: c.req.header('traceparent') ?? null,
      time: iso(store.now()),
      status: null as number | null,
      fault: null as FaultFired,
    };
    if (known) store.logRequest(token, entry);
    settle();
    const where = { host, token: known ? token : null, path: relPath, method: c.req.method };
    const before = await applyRequestFaults(c, store, hangs, { ...where, phase: 'before' });
    let fired = before.fired;
    if (!before.handled) {
      await next();
      fired = (await applyRequestFaults(c, store, hangs, { ...where, phase: 'after' })).fired;
    }
    entry.status = fired === 'reset' ? null : c.res.status;
    entry.fault = fired;
  });

  app.route(CONTROL_PREFIX, controlRoutes(store, clock, settle));
  app.route('/', searchHost(store));
  app.route(AGENT_PREFIX, agentHost(store));

  app.notFound((c) => c.json(errorBody(hostOf(c.req.path), 'Not Found'), 404));
  app.onError((err, c) => {
    console.error('[sandbox] unhandled error', err);
    return c.json(errorBody(hostOf(c.req.path), 'Internal server error'), 500);
  });

  const handle: SandboxHandle = {
    store,
    clock,
    settle,
    dispose() {
      if (tick !== null) clearInterval(tick);
      for (const release of [...hangs]) release();
      stateFile?.flush();
    },
    restored,
  };
  return Object.assign(app, { sandbox: handle });
}
