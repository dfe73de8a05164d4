import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Config } from '../config.js';
import { addressKey } from './address-key.js';

/**
 * The client's address: the TCP peer, or — only when TRUST_PROXY=true — the last X-Forwarded-For
 * entry, which is the one our own proxy appended (earlier entries are whatever the client claimed and
 * can be forged).
 */
function clientIp(c: Context, config: Config): string {
  if (config.trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded?.split(',').pop()?.trim();
    if (last) return last.slice(0, 64);
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not served by @hono/node-server (e.g. app.request() in a unit test).
    return 'unknown';
  }
}

/**
 * The key every per-address limit counts the client under (sign-in, sign-up, registration, rejected
 * upstream tokens, metadata document fetches): the client's address, an IPv6 one by its /64.
 */
export function clientAddressKey(c: Context, config: Config): string {
  return addressKey(clientIp(c, config));
}
