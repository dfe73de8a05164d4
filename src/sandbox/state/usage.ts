import type { Owned } from './store.js';

export interface Counts {
  expert: number;
  keyword: number;
  user: number;
}

export interface UserCounts extends Counts {
  userId: string;
  /** Latest created_at among the counted searches (sandbox ms). */
  last: number;
}

export interface Usage {
  totals: Counts;
  /** Sorted by user id, as GET /api/usage lists them. */
  byUser: UserCounts[];
}

/**
 * Counts one credential's searches created in [from, to], by kind and by user. One pass over the
 * credential's own records with no allocation per record (only one counter object per user), because
 * usage is polled often and a busy credential has thousands of searches.
 */
export function usageBetween(owned: Owned, from: number, to: number): Usage {
  const totals: Counts = { expert: 0, keyword: 0, user: 0 };
  const users = new Map<string, UserCounts>();
  const tally = (records: readonly { userId: string; createdAt: number }[], kind: keyof Counts) => {
    for (const rec of records) {
      if (rec.createdAt < from || rec.createdAt > to) continue;
      let counts = users.get(rec.userId);
      if (counts === undefined) {
        counts = { userId: rec.userId, expert: 0, keyword: 0, user: 0, last: rec.createdAt };
        users.set(rec.userId, counts);
      }
      counts[kind] += 1;
      totals[kind] += 1;
      if (rec.createdAt > counts.last) counts.last = rec.createdAt;
    }
  };
  // Keyword, user, expert: the order users are first met in, which breaks sort ties as it always did.
  tally(owned.keyword, 'keyword');
  tally(owned.user, 'user');
  tally(owned.expert, 'expert');
  return { totals, byUser: [...users.values()].sort((a, b) => a.userId.localeCompare(b.userId)) };
}
