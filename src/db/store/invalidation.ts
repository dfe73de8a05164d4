import { randomUUID } from 'node:crypto';

/**
 * Invalidation of caches built over the database (ARCHITECTURE.md, "Caches over the database"). A write
 * that changes what a cache may hold names the rows it changed as a subject; after the commit, every
 * process's watchers hear it: this process's at once, other instances' through NOTIFY (PostgreSQL), and
 * a write by another process on the same SQLite file (the admin CLI) is seen through PRAGMA
 * data_version, as "anything may have changed".
 */

/** The PostgreSQL channel invalidations travel on between instances. */
export const INVALIDATION_CHANNEL = 'store_invalidation';

/** Anything may have changed: drop everything. */
export const EVERYTHING = '*';

/** A grant row, or any token of it. */
export const grantSubject = (grantId: string) => `grant:${grantId}`;
/** A workspace row, its upstream credential, or every membership of it. */
export const workspaceSubject = (workspaceId: string) => `workspace:${workspaceId}`;
/** One person's membership row of a workspace. */
export const memberSubject = (workspaceId: string, userId: string) => `member:${workspaceId}:${userId}`;

/** An OAuth client row (registration, its stored metadata document, its last use). */
export const clientSubject = (clientId: string) => `client:${clientId}`;

export type Subject =
  | { kind: 'everything' }
  | { kind: 'client'; clientId: string }
  | { kind: 'grant'; grantId: string }
  | { kind: 'workspace'; workspaceId: string }
  | { kind: 'member'; workspaceId: string; userId: string };

/** The subject a watcher received; an unknown spelling counts as everything (never ignore one). */
export function parseSubject(subject: string): Subject {
  const colon = subject.indexOf(':');
  const kind = subject.slice(0, colon);
  const rest = subject.slice(colon + 1);
  if (colon > 0 && rest) {
    if (kind === 'grant') return { kind, grantId: rest };
    // A client id may be a URL (CIMD): everything after the first colon is the id.
    if (kind === 'client') return { kind, clientId: rest };
    if (kind === 'workspace') return { kind, workspaceId: rest };
    const split = rest.indexOf(':');
    if (kind === 'member' && split > 0)
      return { kind, workspaceId: rest.slice(0, split), userId: rest.slice(split + 1) };
  }
  return { kind: 'everything' };
}

export type InvalidationHandler = (subject: string) => void;

/**
 * A cache's view of the invalidations: `handler` (given to watchInvalidations) hears every subject,
 * and `check()` is asked before each cached answer is trusted.
 */
export interface InvalidationWatch {
  /**
   * Delivers what only asking reveals, then says whether cached answers may be used now. SQLite: a
   * commit by another connection to the file since the last check reaches the handler as EVERYTHING
   * (one pragma read, ~1 µs). PostgreSQL: false while the listening connection is down or not yet
   * listening (a notification sent then would be lost).
   */
  check(): boolean;
  /** Resolves once check() first vouches (PostgreSQL: the first LISTEN); at once on SQLite. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The watchers of one store in this process, and the payloads other instances send. Payloads carry the
 * sending store's id so a store skips its own notifications, which it delivered locally already.
 */
export class LocalWatchers {
  private readonly handlers = new Set<InvalidationHandler>();
  readonly origin = randomUUID();

  add(handler: InvalidationHandler): () => void {
    this.handlers.add(handler);
    return () => {
      this.handlers.delete(handler);
    };
  }

  /** Synchronously, to every watcher: the commit that made the change is done. */
  deliver(subject: string): void {
    for (const handler of this.handlers) handler(subject);
  }

  /** The NOTIFY payload for `subject`. */
  payload(subject: string): string {
    return `${this.origin} ${subject}`;
  }

  /** A notification from the channel: delivered unless this store sent it. */
  receive(payload: string): void {
    const space = payload.indexOf(' ');
    if (space > 0 && payload.slice(0, space) === this.origin) return;
    this.deliver(space > 0 ? payload.slice(space + 1) : EVERYTHING);
  }
}

/**
 * What a transaction's handles invalidated, delivered to this process's watchers after the outermost
 * COMMIT; dropped on rollback (the rows did not change). A savepoint rolled back inside a transaction
 * that commits keeps its subjects: a needless invalidation costs one lookup, a missed one a stale answer.
 */
export class PendingInvalidations {
  private readonly subjects = new Set<string>();

  add(subject: string): void {
    this.subjects.add(subject);
  }

  deliverTo(watchers: LocalWatchers): void {
    for (const subject of this.subjects) watchers.deliver(subject);
  }
}
