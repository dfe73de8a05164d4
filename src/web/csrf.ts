import { createHmac, randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { jsx } from 'hono/jsx';
import type { Config } from '../config.js';
import type { AppEnv } from '../http/env.js';
import { derivedKey } from '../security/derived-keys.js';
import { safeEqual } from '../security/tokens.js';
import { cookiePolicy, readCookie, writeCookie } from './cookies.js';

/**
 * CSRF protection for browser forms, two independent layers:
 * 1. `originCheck`: Hono's csrf middleware, requiring Sec-Fetch-Site: same-origin or an Origin equal
 *    to PUBLIC_URL's origin on every form POST.
 * 2. A token in a hidden field named `csrf`, bound to the visitor: for a signed-in browser an HMAC
 *    of its session id; for a signed-out one (sign-in and sign-up forms) an HMAC of a random value
 *    in its own `__Host-` cookie (signed double submit). The HMAC key is derived from SECRET_KEY, so
 *    a token can neither be guessed nor minted by someone who can only set cookies.
 */
export const CSRF_FIELD = 'csrf';
/** The signed-out token cookie lives as long as a form might sit open in a tab. */
const PRE_SESSION_MAX_AGE_S = 24 * 60 * 60;

function csrfKey(config: Config): Buffer {
  return derivedKey(config, 'social-intel-mcp csrf v1');
}

/** The form token for a binding (a session id, or the signed-out cookie's value). */
export function csrfTokenFor(config: Config, kind: 'session' | 'anonymous', binding: string): string {
  return createHmac('sha256', csrfKey(config)).update(`${kind}\0${binding}`).digest('base64url');
}

/** The token of a signed-out visitor who already holds the token cookie, else null. */
export function anonymousCsrfToken(c: Context, config: Config): string | null {
  const value = readCookie(c, cookiePolicy(config).csrfName);
  return value && value.length <= 100 ? csrfTokenFor(config, 'anonymous', value) : null;
}

/**
 * The visitor's token, issuing the signed-out token cookie when there is none yet. Call while
 * building the response (csrfField does), before it is sent.
 */
export function ensureCsrfToken(c: Context<AppEnv>, config: Config): string {
  const existing = c.get('csrfToken');
  if (existing) return existing;
  const value = randomBytes(32).toString('base64url');
  writeCookie(c, config, cookiePolicy(config).csrfName, value, PRE_SESSION_MAX_AGE_S);
  const token = csrfTokenFor(config, 'anonymous', value);
  c.set('csrfToken', token);
  return token;
}

/** The config each request's sessionMiddleware ran with, so csrfField(c) can issue the cookie. */
const requestConfigs = new WeakMap<Context, Config>();

export function bindCsrfConfig(c: Context, config: Config): void {
  requestConfigs.set(c, config);
}

/** The config sessionMiddleware ran with for this request, if it ran. */
export function requestConfig(c: Context): Config | null {
  return requestConfigs.get(c) ?? null;
}

/**
 * The hidden `csrf` input for a form. Needs sessionMiddleware upstream; on a signed-out page it
 * issues the token cookie. Call it as a function while building the page: `{csrfField(c)}`.
 */
export function csrfField(c: Context<AppEnv>) {
  const config = requestConfigs.get(c);
  const token = c.get('csrfToken') ?? (config ? ensureCsrfToken(c, config) : null);
  if (!token) throw new Error('csrfField needs sessionMiddleware in front of the route');
  return jsx('input', { type: 'hidden', name: CSRF_FIELD, value: token });
}

/** Whether a parsed form carries the visitor's token. Constant-time. */
export function verifyCsrf(c: Context<AppEnv>, form: Record<string, unknown>): boolean {
  const expected = c.get('csrfToken');
  const given = form[CSRF_FIELD];
  return (
    typeof expected === 'string' &&
    typeof given === 'string' &&
    given.length > 0 &&
    safeEqual(given, expected)
  );
}

/**
 * Layer 1 for every state-changing route of the browser pages: refuses a form POST that is not
 * same-origin, with an HTML page rather than a bare 403 (the caller renders it).
 */
export function originCheck(config: Config, onRefused: (c: Context<AppEnv>) => Response | Promise<Response>) {
  const origin = new URL(config.publicUrl).origin;
  const check = csrf({ origin, secFetchSite: 'same-origin' });
  const handler: MiddlewareHandler<AppEnv> = async (c, next) => {
    try {
      await check(c, async () => {});
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403) return onRefused(c);
      throw error;
    }
    await next();
  };
  return handler;
}
