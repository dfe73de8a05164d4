import type { Context } from 'hono';
import { isUrlEncoded, readFormFields } from '../http/form-body.js';
import { OAuthError } from './errors.js';

/**
 * The parameters of an OAuth request: its application/x-www-form-urlencoded body (RFC 6749 §3.2) as a
 * map of single values, refusing a parameter sent twice ("parameters MUST NOT be included more than
 * once"). The body is read by the same reader as the browser pages' forms (http/form-body.ts).
 */
export async function readOAuthParameters(c: Context): Promise<Map<string, string>> {
  if (!isUrlEncoded(c)) {
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  const fields = await readFormFields(c, { multipart: false });
  if (!fields) throw new OAuthError('invalid_request', 'The body could not be read.');
  const form = new Map<string, string>();
  for (const [key, value] of fields) {
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
