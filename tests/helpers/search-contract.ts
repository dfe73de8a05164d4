import { expect } from 'vitest';
import type { Sandbox } from './sandbox-process.js';

/** Field types of the search host's documents, as the upstream contract documents them (shared by the sandbox contract tests). */

export const COMPACT = {
  comment: 'integer',
  d: 'string',
  i: 'integer',
  l: 'string',
  like: 'integer',
  n: 'string',
  p: 'string',
  t: 'string',
  view: 'integer',
};
export const TWITTER_COMPACT = { ...COMPACT, u_d: 'string', u_id: 'string', u_loc: 'string', u_t: 'string' };
export const COMMON_POST = {
  created_at: 'string',
  emotion: 'string',
  media_url: 'string',
  platform: 'string',
  post_url: 'string',
  sentiment: 'string',
  sentiment_reason: 'string',
  sentiment_target: 'string',
  text: 'string',
  total_interactions_count: 'integer',
  username: 'string',
};

/** Creates a keyword search and reads its details, checking both status codes. */
export async function keywordSearch(sbx: Sandbox, body: Record<string, unknown>, token?: string) {
  const created = await sbx.search('POST', '/api/iq/keyword_search', { body, token });
  expect(created.status).toBe(201);
  const details = await sbx.search('GET', `/api/iq/keyword_search/${created.body.id}`, { token });
  expect(details.status).toBe(200);
  return { created: created.body, details: details.body };
}
