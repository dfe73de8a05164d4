import type { Context, MiddlewareHandler } from 'hono';
import { createSession, endSession, resolveSession, SESSION_COOKIE_MAX_AGE_S } from '../accounts/sessions.js';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import type { AppEnv, SessionUser } from '../http/env.js';
import { clearCookie, cookiePolicy, readCookie, writeCookie } from './cookies.js';
import { anonymousCsrfToken, bindCsrfConfig, csrfTokenFor, requestConfig } from './csrf.js';

export type { SessionUser };

/**
 * Mounted once, globally: resolves the session cookie to `c.var.user` (or null) and sets
 * `c.var.csrfToken` (bound to the session; for a signed-out visitor bound to the token cookie when
 * they have one, else null until a form issues it). A cookie naming an ended or expired session is
 * cleared. Requests without a cookie (every /mcp call) cost one header read.
 */
export function sessionMiddleware(deps: { db: Store; config: Config }): MiddlewareHandler<AppEnv> {
  const { db, config } = deps;
  const policy = cookiePolicy(config);
  return async (c, next) => {
    bindCsrfConfig(c, config);
    const token = readCookie(c, policy.sessionName);
    const user = token ? await resolveSession(db, token) : null;
    if (token && !user) clearCookie(c, config, policy.sessionName);
    c.set('user', user);
    c.set(
      'csrfToken',
      user && token ? csrfTokenFor(config, 'session', token) : anonymousCsrfToken(c, config),
    );
    await next();
  };
}

/** The raw session id from the cookie (for sign-out), if any. */
export function sessionToken(c: Context, config: Config): string | undefined {
  return readCookie(c, cookiePolicy(config).sessionName);
}

/** Where a signed-out browser is sent: sign-in, coming back to this exact path and query. */
export function signInRedirectUrl(c: Context<AppEnv>, config: Config | null = null): string {
  const url = new URL(c.req.url);
  const params = new URLSearchParams({ next: `${url.pathname}${url.search}` });
  // A cookie that no longer resolves means the session ended: tell the person why they are here.
  if (config && !c.get('user') && sessionToken(c, config)) params.set('reason', 'expired');
  return `/sign-in?${params.toString()}`;
}

/**
 * The signed-in user, or a redirect (303) to `/sign-in?next=<this path and query>` to return.
 * Usage: `const user = requireUser(c); if (user instanceof Response) return user;`
 */
export function requireUser(c: Context<AppEnv>): SessionUser | Response {
  const user = c.get('user');
  if (user) return user;
  return c.redirect(signInRedirectUrl(c, requestConfig(c)), 303);
}

/** The same as middleware: signed-out browsers are redirected to sign-in. */
export function requireUserMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = requireUser(c);
    if (user instanceof Response) return user;
    await next();
  };
}

/**
 * Signs the browser in as `userId` with a new session id, ending the one it held: an id planted
 * before sign-in is never promoted (no session fixation).
 */
export async function startSession(c: Context, db: Store, config: Config, userId: string): Promise<void> {
  const previous = sessionToken(c, config);
  if (previous) await endSession(db, previous);
  const token = await createSession(db, userId, c.req.header('user-agent') ?? null);
  writeCookie(c, config, cookiePolicy(config).sessionName, token, SESSION_COOKIE_MAX_AGE_S);
}
