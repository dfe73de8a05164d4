import { type InvalidationWatch, type OpenStore, parseSubject, type Tables } from '../../db/store/index.js';
import { oncePer } from '../../once-per.js';

export type ClientRow = Tables['oauthClients']['$inferSelect'];

export interface ClientCacheOptions {
  /** How long a row is kept: bounds what a lost notification could leave behind. */
  ttlMs: number;
  maxEntries: number;
}

export const DEFAULT_CLIENT_CACHE: ClientCacheOptions = { ttlMs: 60_000, maxEntries: 10_000 };

/**
 * Client rows as the token and revocation endpoints read them, kept per store (the lookup is
 * one of a refresh grant's two PostgreSQL round trips; `COMPARE_DATABASE=postgres npx tsx
 * bench/compare.ts`). Correct because every write to a client row invalidates it through the store
 * (ARCHITECTURE.md, "Caches over the database"): a stored metadata document, a touch, the purge; a new
 * registration needs none, since a miss is never kept. While the store cannot vouch for invalidations
 * (PostgreSQL's listening connection down) every lookup reads the database.
 *
 * A lookup that began before an invalidation of a client must not keep what it read: it takes the
 * generation before reading and stores only if no client was invalidated since.
 */
export class ClientRowCache {
  private readonly rows = new Map<string, { row: ClientRow; storedAt: number }>();
  private generation = 0;
  private readonly watch: InvalidationWatch;

  constructor(
    db: OpenStore,
    private readonly options: ClientCacheOptions = DEFAULT_CLIENT_CACHE,
  ) {
    this.watch = db.watchInvalidations((subject) => this.invalidate(subject));
  }

  /** The row of `clientId`: kept if fresh, else what `read` finds (kept when it is a row). */
  async get(
    clientId: string,
    read: () => Promise<ClientRow | undefined>,
    now = Date.now(),
  ): Promise<ClientRow | undefined> {
    // check() first: on SQLite it is what brings another process's commits in.
    const usable = this.watch.check();
    const kept = usable ? this.rows.get(clientId) : undefined;
    if (kept && now - kept.storedAt < this.options.ttlMs) return kept.row;
    const stamp = this.generation;
    const row = await read();
    if (row && usable && stamp === this.generation && this.options.ttlMs > 0) {
      this.rows.delete(clientId);
      if (this.rows.size >= this.options.maxEntries) {
        const oldest = this.rows.keys().next();
        if (!oldest.done) this.rows.delete(oldest.value);
      }
      this.rows.set(clientId, { row, storedAt: now });
    }
    return row;
  }

  get size(): number {
    return this.rows.size;
  }

  private invalidate(subject: string): void {
    const target = parseSubject(subject);
    if (target.kind === 'client') {
      this.generation++;
      this.rows.delete(target.clientId);
    } else if (target.kind === 'everything') {
      this.generation++;
      this.rows.clear();
    }
  }
}

/** The cache of one store, made at its first client lookup and living as long as the store. */
export const clientRowCache = oncePer((db: OpenStore) => new ClientRowCache(db));
