/**
 * Brute-force limits of the account pages, counted in the database so they hold across instances
 * (accounts/rate-limits.ts). Password checks count failures (password-attempts.ts), so a person who
 * types their password right is never slowed down; sign-up counts attempts that reach password
 * hashing.
 */
export const RATE_LIMITS = {
  /** Wrong passwords per account (sign-in and password change together): the 11th within 15 minutes is refused without checking. */
  signInPerAccount: { limit: 10, windowMs: 15 * 60_000 },
  /** Failed sign-ins per client IP (many accounts from one address: credential stuffing). */
  signInPerIp: { limit: 50, windowMs: 15 * 60_000 },
  signUpPerAccount: { limit: 5, windowMs: 60 * 60_000 },
  signUpPerIp: { limit: 20, windowMs: 60 * 60_000 },
  /** Token checks against the upstream per user (we must not become a token-guessing oracle). */
  credentialChecksPerUser: { limit: 20, windowMs: 10 * 60_000 },
} as const;

/** The sentence a throttled form shows; sets Retry-After (RFC 9110 §10.2.3). */
export function tooManyAttempts(
  c: { header(name: string, value: string): void },
  retryAfterSeconds: number,
): string {
  c.header('Retry-After', String(retryAfterSeconds));
  const m = Math.ceil(retryAfterSeconds / 60);
  return `Too many attempts. Wait ${m <= 1 ? 'a minute' : `${m} minutes`}, then try again.`;
}
