import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../config.js';
import { oncePer } from '../once-per.js';

/**
 * Cookie policy (docs/security.md, Sign-in and browser pages): `__Host-` prefix (Secure, Path=/, no Domain:
 * the cookie cannot be planted or read by a sibling subdomain), HttpOnly, SameSite=Lax.
 *
 * `__Host-` requires Secure. Browsers accept Secure cookies over plain http on localhost and
 * 127.0.0.1 (a secure context), so local development keeps the prefix. On plain http to any other
 * host a Secure cookie would be dropped, so there (and only there) the names lose the prefix and the
 * cookies lose Secure.
 */
export interface CookiePolicy {
  secure: boolean;
  sessionName: string;
  csrfName: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const cookiePolicy = oncePer((config: Config): CookiePolicy => {
  const url = new URL(config.publicUrl);
  const secure = url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  const prefix = secure ? '__Host-' : '';
  return { secure, sessionName: `${prefix}sim_session`, csrfName: `${prefix}sim_csrf` };
});

export function readCookie(c: Context, name: string): string | undefined {
  return getCookie(c, name);
}

export function writeCookie(c: Context, config: Config, name: string, value: string, maxAgeSeconds: number) {
  setCookie(c, name, value, {
    path: '/',
    secure: cookiePolicy(config).secure,
    httpOnly: true,
    sameSite: 'Lax',
    maxAge: maxAgeSeconds,
  });
}

export function clearCookie(c: Context, config: Config, name: string) {
  deleteCookie(c, name, { path: '/', secure: cookiePolicy(config).secure, httpOnly: true, sameSite: 'Lax' });
}
