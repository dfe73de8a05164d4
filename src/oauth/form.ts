import type { Context } from 'hono';
import { OAuthError } from './errors.js';

/**
 * Reads an application/x-www-form-urlencoded body (RFC 6749 §3.2) into single values, refusing a
 * parameter sent twice ("parameters MUST NOT be included more than once").
 */
export async function readForm(c: Context): Promise<Map<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  const params = new URLSearchParams(await c.req.text());
  const form = new Map<string, string>();
  for (const [key, value] of params) {
    if (form.has(key)) throw new OAuthError('invalid_request', `The parameter ${key} is repeated.`);
    form.set(key, value);
  }
  return form;
}

export function required(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError('invalid_request', `The parameter ${name} is missing.`);
  return value;
}
