import { describe, expect, it } from 'vitest';
import { keyId } from '../../src/config.js';
import { SecretBox } from '../../src/security/secrets.js';
import { hashToken, newToken, safeEqual } from '../../src/security/tokens.js';

const keyA = Buffer.alloc(32, 1);
const keyB = Buffer.alloc(32, 2);
const box = (...keys: Buffer[]) => new SecretBox(keys.map((key) => ({ id: keyId(key), key })));

describe('SecretBox (AES-256-GCM envelope)', () => {
  it('round-trips and never contains the plaintext', () => {
    const sealed = box(keyA).seal('upstream-token-1234', 'ws1');
    expect(sealed).not.toContain('upstream-token');
    expect(sealed.startsWith(`v1.${keyId(keyA)}.`)).toBe(true);
    expect(box(keyA).open(sealed, 'ws1')).toBe('upstream-token-1234');
  });

  it('uses a fresh IV each time', () => {
    expect(box(keyA).seal('same', 'ws1')).not.toBe(box(keyA).seal('same', 'ws1'));
  });

  it('binds the context: an envelope copied to another workspace does not open', () => {
    const sealed = box(keyA).seal('secret', 'ws1');
    expect(() => box(keyA).open(sealed, 'ws2')).toThrow();
  });

  it('detects tampering', () => {
    const sealed = box(keyA).seal('secret', 'ws1');
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3] as string, 'base64url');
    ct[0] = (ct[0] as number) ^ 1;
    parts[3] = ct.toString('base64url');
    expect(() => box(keyA).open(parts.join('.'), 'ws1')).toThrow();
  });

  it('opens envelopes of the previous key after rotation and seals with the new one', () => {
    const old = box(keyA).seal('secret', 'ws1');
    const rotated = box(keyB, keyA);
    expect(rotated.open(old, 'ws1')).toBe('secret');
    expect(SecretBox.keyIdOf(rotated.seal('secret', 'ws1'))).toBe(keyId(keyB));
    expect(() => box(keyB).open(old, 'ws1')).toThrow(/SECRET_KEY_PREVIOUS/);
  });
});

describe('opaque tokens', () => {
  it('are prefixed, 256-bit random and hashed deterministically', () => {
    const token = newToken('access');
    expect(token).toMatch(/^sim_at_[A-Za-z0-9_-]{43}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toContain(token.slice(7));
    expect(newToken('access')).not.toBe(token);
  });

  it('compares in constant time, whatever the lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
