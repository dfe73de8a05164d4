import type { Context } from 'hono';
import type { AppEnv } from '../../http/env.js';
import { jsonError } from '../../http/errors.js';
import { wantsJson } from '../../http/wants-json.js';
import { MessagePage } from '../kit/message-page.js';
import { privatePage } from '../layout.js';

/**
 * The answer to a request that needed the database while it could not be reached (a restart, a
 * failover): 503 with Retry-After (RFC 9110 §15.6.4, §10.2.3), a page for people and the JSON error
 * body for API paths and JSON clients. /mcp answers in JSON-RPC instead (app.ts).
 */
export function databaseUnavailable(c: Context<AppEnv>, retryAfterSeconds: number) {
  c.header('Retry-After', String(retryAfterSeconds));
  const message = `The service cannot reach its database right now (it may be restarting). Try again in ${retryAfterSeconds} s.`;
  if (wantsJson(c)) return jsonError(c, 503, 'temporarily_unavailable', message);
  // A page asked for again as is; a form's page is not resent by a link (its fields would be lost).
  const link = c.req.method === 'GET' ? { href: c.req.path, text: 'Try again' } : { href: '/', text: 'Home' };
  return privatePage(c, <MessagePage title="Back in a moment" message={message} link={link} />, 503);
}
