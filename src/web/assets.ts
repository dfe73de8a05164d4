import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import { COPY_SCRIPT } from './copy-script.js';
import { STYLESHEET } from './style.js';

export const STYLESHEET_PATH = '/assets/style.css';
export const COPY_SCRIPT_PATH = '/assets/copy.js';

/** The stylesheet and the copy-button script, from our own origin (CSP style-src/script-src 'self'). */
export function assetRoutes() {
  const app = new Hono<AppEnv>();
  const headers = (type: string) => ({
    'Content-Type': `${type}; charset=utf-8`,
    'Cache-Control': 'public, max-age=3600',
  });
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, headers('text/css')));
  app.get(COPY_SCRIPT_PATH, (c) => c.body(COPY_SCRIPT, 200, headers('text/javascript')));
  return app;
}
