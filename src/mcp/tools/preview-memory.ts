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
const MAX_POSTS_PER_SEARCH = 200;

/** A caller's view of the memory: what it was shown of one search. */
export interface ShownPreviews {
  /** Of `keys` (the preview's posts, in order), which were not shown before; all are marked shown now. */
  take(search: string, keys: readonly string[]): { fresh: boolean[]; earlier: number };
  /** The search ended: its preview is not shown again. */
  forget(search: string): void;
}

export class PreviewMemory {
  private readonly shown = new Map<string, Set<string>>();

  constructor(private readonly maxSearches = MAX_SEARCHES) {}

  /** The memory as one connection sees it. */
  of(connection: string): ShownPreviews {
    return {
      take: (search, keys) => this.take(`${connection}\u0000${search}`, keys),
      forget: (search) => {
        this.shown.delete(`${connection}\u0000${search}`);
      },
    };
  }

  /** How many searches are remembered (tests: the bound holds). */
  get size(): number {
    return this.shown.size;
  }

  private take(key: string, keys: readonly string[]): { fresh: boolean[]; earlier: number } {
    const seen = this.shown.get(key) ?? new Set<string>();
    // Touched last: a Map iterates in insertion order, so the first key is the least recently used.
    this.shown.delete(key);
    this.shown.set(key, seen);
    const fresh = keys.map((k) => !seen.has(k));
    const earlier = fresh.filter((f) => !f).length;
    for (const k of keys) if (seen.size < MAX_POSTS_PER_SEARCH) seen.add(k);
    while (this.shown.size > this.maxSearches) {
      const oldest = this.shown.keys().next().value;
      if (oldest === undefined) break;
      this.shown.delete(oldest);
    }
    return { fresh, earlier };
  }
}
