import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * Password hashing: argon2id with OWASP's Password Storage Cheat Sheet baseline (m = 19 MiB, t = 2,
 * p = 1). That is the first of OWASP's equivalent configurations and the one that keeps memory
 * modest on a small machine: each concurrent hash holds 19 MiB, and @node-rs/argon2 runs them on the
 * libuv thread pool (4 threads by default), so sign-in bursts cost at most ~80 MiB. Raising any of
 * these later is safe: `needsRehash` upgrades a stored hash at the next successful sign-in.
 */
export const ARGON2_PARAMS = {
  // Algorithm is a const enum, unusable under isolatedModules: 2 is Argon2id.
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const;

export const PASSWORD_MIN_LENGTH = 12;
/** Caps the work an attacker can make us do per attempt; passphrases fit comfortably. */
export const PASSWORD_MAX_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_PARAMS);
}

/** False for a wrong password and for anything that is not a valid hash (never throws). */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** True when a stored hash was made with weaker (or other) parameters than today's. */
export function needsRehash(passwordHash: string): boolean {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(passwordHash);
  if (!m) return true;
  return (
    Number(m[1]) < ARGON2_PARAMS.memoryCost ||
    Number(m[2]) < ARGON2_PARAMS.timeCost ||
    Number(m[3]) !== ARGON2_PARAMS.parallelism
  );
}

let dummy: Promise<string> | null = null;
/**
 * A hash of a random password with the current parameters. Verifying against it when the email is
 * unknown makes a failed sign-in take the same time whether or not the account exists.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}

/**
 * A small built-in list of passwords that are long enough to pass the length rule yet appear near the
 * top of breach corpora. Compared lower-cased. Not a substitute for a breach check, a floor.
 */
const COMMON_PASSWORDS = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '111111111111',
  '000000000000',
  '123123123123',
  '121212121212',
  '098765432109',
  '987654321098',
  'password1234',
  'password12345',
  'password123456',
  'password123!',
  'password2024',
  'password2025',
  'password2026',
  'passwordpassword',
  'mypassword123',
  'mypassword1234',
  'thisismypassword',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwertyuiopasdf',
  'qwertyuiopasdfgh',
  'qwerty123456',
  'qwerty1234567',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  '1qaz2wsx3edc4rfv',
  'zaq12wsxcde3',
  'asdfghjkl123',
  "asdfghjkl;'",
  'zxcvbnm12345',
  'abcdefghijkl',
  'abcdefgh1234',
  'abc123456789',
  'abcd12345678',
  'iloveyou1234',
  'iloveyou12345',
  'iloveyouiloveyou',
  'letmein12345',
  'letmeinplease',
  'welcome12345',
  'welcome123456',
  'welcometomyworld',
  'administrator',
  'administrator1',
  'admin1234567',
  'adminadminadmin',
  'changeme1234',
  'changemenow!',
  'trustno11234',
  'sunshine1234',
  'football1234',
  'baseball1234',
  'superman1234',
  'princess1234',
  'starwars1234',
  'monkey123456',
  'dragon123456',
  'master123456',
  'shadow123456',
  'michael12345',
  'jennifer1234',
  'computer1234',
  'internet1234',
  'whatever1234',
  'secret123456',
  'letmein!2345',
  'correcthorsebatterystaple',
  'thequickbrownfox',
  'qazwsxedcrfv',
  'pa55word1234',
  'p@ssword1234',
  'p@ssw0rd1234',
  'passw0rd1234',
  'password1!password1!',
]);

export type PasswordProblem = 'too_short' | 'too_long' | 'common' | 'like_email';

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email?: string): PasswordProblem | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (password.length > PASSWORD_MAX_LENGTH) return 'too_long';
  const lower = password.toLowerCase();
  // A handful of distinct characters ("aaaaaaaaaaaa", "abababababab") is as guessable as a listed one.
  if (COMMON_PASSWORDS.has(lower) || new Set(lower).size < 4) return 'common';
  if (email) {
    const normalised = email.trim().toLowerCase();
    const local = normalised.split('@')[0] ?? '';
    if (
      lower === normalised ||
      (local.length >= 4 && lower.includes(local) && lower.length - local.length < 6)
    ) {
      return 'like_email';
    }
  }
  return null;
}

export function passwordProblemMessage(problem: PasswordProblem): string {
  switch (problem) {
    case 'too_short':
      return `Use at least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a strong, memorable password.`;
    case 'too_long':
      return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
    case 'common':
      return 'This password is too common or too repetitive to be safe. Choose something less predictable.';
    case 'like_email':
      return 'This password is too close to your email address. Choose something else.';
  }
}
