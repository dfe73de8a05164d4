import type { HitOutcome } from '../accounts/rate-limits.js';
import { SharedRateLimiter } from '../accounts/rate-limits.js';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import { RATE_LIMITS } from './rate-limits.js';

export type PasswordAttempt =
  | {
      allowed: true /** The password was right: the address's reservation back, the account's failures forgotten. */;
      succeeded(): Promise<void>;
    }
  | Extract<HitOutcome, { allowed: false }>;

/**
 * The budget of wrong passwords, per account and per client address, shared by every form that checks
 * a password (sign-in, password change): the same account cannot be guessed at twice the rate through
 * two forms. An attempt is counted before the password is hashed, so parallel attempts cannot all pass
 * a check made before any of them failed; a right password gives the count back.
 */
export class PasswordAttempts {
  private readonly account: SharedRateLimiter;
  private readonly ip: SharedRateLimiter;

  constructor(db: Store, config: Config) {
    this.account = new SharedRateLimiter(db, config, 'signInPerAccount', RATE_LIMITS.signInPerAccount);
    this.ip = new SharedRateLimiter(db, config, 'signInPerIp', RATE_LIMITS.signInPerIp);
  }

  /** Reserves one attempt at `email`'s password from `ip`; refused when either budget is spent. */
  async reserve(ip: string, email: string): Promise<PasswordAttempt> {
    const byIp = await this.ip.hit(ip);
    if (!byIp.allowed) return byIp;
    const byAccount = await this.account.hit(email);
    if (!byAccount.allowed) {
      // Refused without checking anything: not a failure of this address.
      await byIp.giveBack();
      return byAccount;
    }
    return {
      allowed: true,
      succeeded: async () => {
        await byIp.giveBack();
        await this.account.reset(email);
      },
    };
  }
}
