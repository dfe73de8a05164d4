import { hkdfSync } from 'node:crypto';
import type { Config } from '../config.js';
import { oncePer } from '../once-per.js';

/** What each derived key is for; the label is the HKDF `info`, so keys of different uses never coincide. */
export type KeyPurpose =
  | 'social-intel-mcp csrf v1'
  | 'social-intel-mcp pending-authorization v1'
  | 'social-intel-mcp rate-limit v1'
  | 'social-intel-mcp recent-submits v1'
  | 'social-intel-mcp task-id v1'
  | 'social-intel-mcp upstream-caller v1';

const byConfig = oncePer((_config: Config) => new Map<KeyPurpose, Buffer>());

/**
 * A 32-byte key for one purpose, derived from the current SECRET_KEY with HKDF-SHA256 (RFC 5869), so
 * the server secret itself is never used directly as an HMAC or JWT key.
 */
export function derivedKey(config: Config, purpose: KeyPurpose): Buffer {
  const keys = byConfig(config);
  let key = keys.get(purpose);
  if (!key) {
    const secret = config.secretKeys[0]?.key;
    if (!secret) throw new Error('no SECRET_KEY configured');
    key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
    keys.set(purpose, key);
  }
  return key;
}
