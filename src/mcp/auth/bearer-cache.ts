import { parseSubject } from '../../db/store/index.js';

/** Whose answer an entry is: what an invalidation subject (src/db/store/invalidation.ts) can name. */
export interface BearerOwner {
  grantId: string;
  workspaceId: string;
  userId: string;
}

interface Entry<T> {
  owner: BearerOwner;
  value: T;
  storedAt: number;
}

/**
 * Answers of the bearer lookup (token → grant → membership → credential) for tokens seen in the last
 * `ttlMs`, keyed by the token's hash (the lookup is a PostgreSQL round trip per request).
 * Correct because every write that changes an answer invalidates it at once (Store.invalidate, heard
 * through the store's watch); the lifetime only bounds what a lost notification could leave behind.
 *
 * A lookup that began before an invalidation must not store what it read afterwards: it takes a
 * stamp() before reading, and store() refuses once any invalidation has happened since (a generation
 * counter; coarse, so an unrelated invalidation costs at most one more lookup). Refusals are never
 * kept: an unknown or revoked token costs its lookup each time, as before.
 */
export class BearerCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;

  constructor(private readonly options: { ttlMs: number; maxEntries: number }) {}

  /** The answer stored for `key` less than ttlMs ago, if nothing invalidated it since. */
  get(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.storedAt < this.options.ttlMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Taken before a lookup reads the database. */
  stamp(): number {
    return this.generation;
  }

  /** Keeps a lookup's answer, unless something was invalidated since its stamp. */
  store(key: string, stamp: number, owner: BearerOwner, value: T, now: number): void {
    if (stamp !== this.generation || this.options.ttlMs <= 0) return;
    this.entries.delete(key);
    // Full: the oldest stored goes (a Map iterates in insertion order).
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { owner, value, storedAt: now });
  }

  /** Drops what `subject` names (every entry for EVERYTHING or an unknown subject). */
  invalidate(subject: string): void {
    const target = parseSubject(subject);
    // No answer here reads a client row (a client is deleted only once it has no grants left).
    if (target.kind === 'client') return;
    this.generation++;
    if (target.kind === 'everything') {
      this.entries.clear();
      return;
    }
    for (const [key, { owner }] of this.entries) {
      const hit =
        target.kind === 'grant'
          ? owner.grantId === target.grantId
          : owner.workspaceId === target.workspaceId &&
            (target.kind === 'workspace' || owner.userId === target.userId);
      if (hit) this.entries.delete(key);
    }
  }

  /** Drops one entry (its token turned out expired). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
