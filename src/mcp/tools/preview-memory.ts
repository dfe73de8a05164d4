import { hash } from 'node:crypto';

/**
 * Which preview posts of a running search each caller has been shown, so a follow-up answer (a get
 * with `wait`, a repeated read) shows only the new ones instead of resending the same posts on every
 * wait. Kept per connection (a grant, or one upstream credential acting directly) and per search, in
 * this process's memory, bounded, least recently used first out.
 *
 * Per process is enough: a follow-up served by another instance knows nothing shown and shows the
 * whole preview again. Forgetting can only repeat a post, never hide one that was not shown to that
 * connection. The answer says how many were left out, so a model that did not see them (another
 * conversation on the same connection) knows they exist and that the finished search lists them all.
 */

/** Searches remembered across all callers; a preview is a few posts, so an entry is small. */
const MAX_SEARCHES = 2_000;
/** Posts remembered per search: upstream's preview is about ten; a longer one is remembered in part. */
const MAX_POSTS_PER_SEARCH = 50;

/**
 * Entries are held by digest, never by the text they come from (a connection key, a search id the
 * caller passed, post links upstream chose): a fixed 22-character key per search and a 48-bit number
 * per post, so the whole memory stays under about 2,000 × (50 × 40 B + 200 B) ≈ 4.4 MB however long
 * those texts are. A collision of two posts' numbers (about 1 in 10^11 within a search) would only
 * count a post as shown.
 */
// One-shot digests: every read of a search forgets or takes its entry, and crypto.hash makes no Hash object.
const searchKey = (connection: string, search: string): string =>
  hash('sha256', `${connection}\u0000${search}`, 'base64url').slice(0, 22);
const postNumber = (key: string): number => hash('sha256', key, 'buffer').readUIntBE(0, 6);

/** A caller's view of the memory: what it was shown of one search. */
export interface ShownPreviews {
  /** Of `keys` (the preview's posts, in order), which were not shown before; all are marked shown now. */
  take(search: string, keys: readonly string[]): { fresh: boolean[]; earlier: number };
  /** The search ended: its preview is not shown again. */
  forget(search: string): void;
}

export class PreviewMemory {
  private readonly shown = new Map<string, Set<number>>();

  constructor(private readonly maxSearches = MAX_SEARCHES) {}

  /** The memory as one connection sees it. */
  of(connection: string): ShownPreviews {
    return {
      take: (search, keys) => this.take(searchKey(connection, search), keys),
      forget: (search) => {
        this.shown.delete(searchKey(connection, search));
      },
    };
  }

  /** How many searches are remembered (tests: the bound holds). */
  get size(): number {
    return this.shown.size;
  }

  private take(key: string, keys: readonly string[]): { fresh: boolean[]; earlier: number } {
    const seen = this.shown.get(key) ?? new Set<number>();
    // Touched last: a Map iterates in insertion order, so the first key is the least recently used.
    this.shown.delete(key);
    this.shown.set(key, seen);
    const numbers = keys.map(postNumber);
    const fresh = numbers.map((n) => !seen.has(n));
    const earlier = fresh.filter((f) => !f).length;
    for (const n of numbers) if (seen.size < MAX_POSTS_PER_SEARCH) seen.add(n);
    while (this.shown.size > this.maxSearches) {
      const oldest = this.shown.keys().next().value;
      if (oldest === undefined) break;
      this.shown.delete(oldest);
    }
    return { fresh, earlier };
  }
}
