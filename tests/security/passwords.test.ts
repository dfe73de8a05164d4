import { describe, expect, it } from 'vitest';
import {
  ARGON2_PARAMS,
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  passwordProblem,
  verifyPassword,
} from '../../src/security/passwords.js';

describe('password hashing', () => {
  it('uses argon2id at or above the OWASP baseline, salted', async () => {
    const a = await hashPassword('a long enough passphrase');
    const b = await hashPassword('a long enough passphrase');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(ARGON2_PARAMS.memoryCost).toBeGreaterThanOrEqual(19_456);
    expect(ARGON2_PARAMS.timeCost).toBeGreaterThanOrEqual(2);
    expect(a).not.toBe(b);
    expect(a).not.toContain('passphrase');
  });

  it('verifies the right password and refuses a wrong one or a broken hash', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword(stored, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse batterY')).toBe(false);
    expect(await verifyPassword('not a hash', 'correct horse battery')).toBe(false);
    expect(await verifyPassword(await dummyPasswordHash(), 'anything at all')).toBe(false);
  });

  it('asks for a rehash of weaker or foreign hashes only', async () => {
    expect(needsRehash(await hashPassword('correct horse battery'))).toBe(false);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(needsRehash('$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(needsRehash('$2b$10$abcdefghijklmnopqrstuv')).toBe(true);
  });
});

describe('password rules', () => {
  it.each([
    ['short', 'elevenchars', 'too_short'],
    ['too long', `${'x'.repeat(257)}abcd`, 'too_long'],
    ['listed', 'Password1234', 'common'],
    ['listed, other case', 'QWERTYUIOP123', 'common'],
    ['repetitive', 'abababababababab', 'common'],
    ['the email', 'someone@example.com', 'like_email'],
    ['the local part plus a little', 'someone2024!', 'like_email'],
  ])('refuses a %s password', (_label, password, problem) => {
    expect(passwordProblem(password, 'Someone@Example.com')).toBe(problem);
  });

  it('accepts a long unrelated passphrase, counting characters not bytes', () => {
    expect(passwordProblem('violet tractor umbrella', 'someone@example.com')).toBeNull();
    expect(passwordProblem('ünïcödé-pässwörd', 'someone@example.com')).toBeNull();
  });
});
