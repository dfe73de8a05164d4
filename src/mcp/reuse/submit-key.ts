import { createHmac } from 'node:crypto';

/**
 * The key of a submit: the credential that pays (token and upstream user id), the tool and its
 * identity as canonical JSON (keys sorted), under an HMAC keyed from SECRET_KEY, so the table never
 * holds the token and a copy of it cannot be checked against guessed tokens and arguments. (Rows
 * written under the earlier plain SHA-256 simply stop matching; they lived 10 minutes.)
 */
export function submitKey(
  hashKey: Buffer,
  creds: { token: string; userId: string },
  tool: string,
  identity: Record<string, unknown>,
): string {
  return createHmac('sha256', hashKey)
    .update(creds.token)
    .update('\u0000')
    .update(creds.userId)
    .update('\u0000')
    .update(tool)
    .update('\u0000')
    .update(canonicalJson(identity))
    .digest('base64url');
}

/** JSON with every object's keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
