import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { TOKEN_HEADER, USER_HEADER } from '../constants.js';
import type { Store } from '../state/store.js';
import type { Credential } from '../state/types.js';

export type SearchEnv = { Variables: { cred: Credential; userId: string } };

export function fail(
  c: Context,
  status: ContentfulStatusCode,
  error: string,
  extra: Record<string, unknown> = {},
) {
  return c.json({ error, ...extra }, status);
}

/** 401 for a missing or unknown token; 400 for a missing user id unless `userOptional`. */
export function searchAuth(store: Store, userOptional = false): MiddlewareHandler<SearchEnv> {
  return async (c, next) => {
    const token = c.req.header(TOKEN_HEADER);
    const cred = token === undefined ? undefined : store.credentials.get(token);
    if (cred === undefined) return fail(c, 401, 'Invalid or missing API token (X-SERVICE-TOKEN)');
    const userId = c.req.header(USER_HEADER)?.trim() ?? '';
    if (userId === '' && !userOptional) return fail(c, 400, 'Missing X-SERVICE-USER-ID header');
    c.set('cred', cred);
    c.set('userId', userId);
    await next();
  };
}

export function insufficientCredits(c: Context, required: number, available: number) {
  return c.json(
    { error: 'insufficient_credits', required_credits: required, available_credits: available },
    402,
  );
}

/** Positive integer path id, else null (the caller answers 404 like an unknown id). */
export function intId(raw: string): number | null {
  return /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}
