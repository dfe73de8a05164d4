import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, TOKEN_HEADER, USER_HEADER } from '../constants.js';
import { type BodyResult, UUID_PATTERN, type ValidationItem, validationDetail } from '../http.js';
import type { Store } from '../state/store.js';
import type { Credential } from '../state/types.js';

export type AgentEnv = { Variables: { cred: Credential; userId: string } };

export function detail(c: Context, status: ContentfulStatusCode, message: string) {
  return c.json({ detail: message }, status);
}

export function invalid(c: Context, items: ValidationItem[]) {
  return c.json({ detail: items }, 422);
}

export function zodInvalid(c: Context, error: z.ZodError, where: 'body' | 'query' | 'path') {
  return invalid(c, validationDetail(error, where));
}

/** Malformed JSON answers like FastAPI: 422 with a json_invalid item. */
export function jsonInvalid(c: Context, body: Extract<BodyResult, { ok: false }>) {
  return invalid(c, [{ loc: ['body'], msg: `JSON decode error: ${body.message}`, type: 'json_invalid' }]);
}

export function agentAuth(store: Store): MiddlewareHandler<AgentEnv> {
  return async (c, next) => {
    const token = c.req.header(TOKEN_HEADER);
    const cred = token === undefined ? undefined : store.credentials.get(token);
    if (cred === undefined) return detail(c, 401, 'Invalid or missing API token (X-SERVICE-TOKEN)');
    const userId = c.req.header(USER_HEADER)?.trim() ?? '';
    if (userId === '') return detail(c, 400, 'Missing X-SERVICE-USER-ID header');
    c.set('cred', cred);
    c.set('userId', userId);
    await next();
  };
}

/** Path ids are UUIDs; anything else is a 422 validation error naming the parameter. */
export function badUuid(c: Context, name: string, value: string) {
  if (UUID_PATTERN.test(value)) return null;
  return invalid(c, [
    {
      loc: ['path', name],
      msg: `Input should be a valid UUID, invalid character or length: ${JSON.stringify(value).slice(0, 60)}`,
      type: 'uuid_parsing',
    },
  ]);
}

export function insufficientCredits(c: Context, required: number, available: number) {
  return c.json(
    {
      error: 'insufficient_credits',
      detail: `Insufficient credits: ${required} required, ${available} available`,
      required_credits: required,
      available_credits: available,
    },
    402,
  );
}

export const pageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  offset: z.coerce.number().int().min(0).default(0),
});
