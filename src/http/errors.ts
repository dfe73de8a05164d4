import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The JSON body of every non-OAuth, non-JSON-RPC error: a stable code and a sentence for people. */
export function jsonError(c: Context, status: ContentfulStatusCode, error: string, message: string) {
  return c.json({ error, message }, status);
}
