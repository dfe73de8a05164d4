import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Opaque secrets: 256 random bits, base64url, behind a readable prefix so a leaked value is
 * recognisable in logs and secret scanners (DESIGN.md §3). Only SHA-256 digests are stored: a 256-bit
 * random value needs no salt or slow hash to resist guessing.
 */
export const TOKEN_PREFIXES = {
  access: 'sim_at_',
  refresh: 'sim_rt_',
  code: 'sim_ac_',
  clientSecret: 'sim_cs_',
  session: 'sim_ss_',
  invite: 'sim_iv_',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIXES;

export function newToken(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/** SHA-256, base64url. crypto.hash (Node ≥ 20.12) makes no Hash object: a quarter of createHash's time. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** Constant-time comparison of two strings (compares their digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function newId(): string {
  return crypto.randomUUID();
}
