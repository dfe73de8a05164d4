import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Opaque secrets: 256 random bits, base64url, behind a readable prefix so a leaked value is
 * recognisable in logs and secret scanners. Only SHA-256 digests are stored: a 256-bit
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

/**
 * Access tokens a person creates for automation: `sim_pat_`, 43 base64url characters (256 random
 * bits), then 8 hex digits of the CRC-32 of everything before them. The prefix lets secret scanners
 * find one (`sim_pat_[A-Za-z0-9_-]{43}[0-9a-f]{8}`); the checksum lets them, and the bearer check,
 * tell a real token from a look-alike or a mistyped one without a lookup. Stored as SHA-256 like every
 * other token.
 */
export const PERSONAL_TOKEN_PREFIX = 'sim_pat_';
const PERSONAL_TOKEN_SHAPE = /^sim_pat_[A-Za-z0-9_-]{43}[0-9a-f]{8}$/;

function checksum(body: string): string {
  return crc32(body).toString(16).padStart(8, '0');
}

export function newPersonalToken(): string {
  const body = PERSONAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return body + checksum(body);
}

/** Whether `token` has the shape and checksum of one newPersonalToken makes. */
export function isWellFormedPersonalToken(token: string): boolean {
  return PERSONAL_TOKEN_SHAPE.test(token) && checksum(token.slice(0, -8)) === token.slice(-8);
}

export function newId(): string {
  return crypto.randomUUID();
}
