import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import { COPY_SCRIPT } from './copy-script.js';
import { LOCAL_TIME_SCRIPT } from './local-time-script.js';
import { STYLESHEET } from './style.js';

export const STYLESHEET_PATH = '/assets/style.css';
export const COPY_SCRIPT_PATH = '/assets/copy.js';
export const LOCAL_TIME_SCRIPT_PATH = '/assets/local-time.js';

/** The stylesheet and the two small scripts (copy buttons, local times), from our own origin (CSP style-src/script-src 'self'). */
export function assetRoutes() {
  const app = new Hono<AppEnv>();
  const headers = (type: string) => ({
    'Content-Type': `${type}; charset=utf-8`,
    'Cache-Control': 'public, max-age=3600',
  });
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, headers('text/css')));
  app.get(COPY_SCRIPT_PATH, (c) => c.body(COPY_SCRIPT, 200, headers('text/javascript')));
  app.get(LOCAL_TIME_SCRIPT_PATH, (c) => c.body(LOCAL_TIME_SCRIPT, 200, headers('text/javascript')));
  return app;
}
