import { Hono } from 'hono';
import type { Store } from '../state/store.js';
import type { AgentEnv } from './common.js';
import { runRoutes } from './runs.js';
import { scheduleRoutes } from './schedules.js';

/** The agent host ({agent_url}): runs and schedules under /api/v1. */
export function agentHost(store: Store): Hono<AgentEnv> {
  const app = new Hono<AgentEnv>();
  app.route('/', runRoutes(store));
  app.route('/', scheduleRoutes(store));
  return app;
}
