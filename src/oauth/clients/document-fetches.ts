import type { HitOutcome } from '../../accounts/rate-limits.js';
import type { Store } from '../../db/store/index.js';
import { oncePer } from '../../once-per.js';
import { OAuthError } from '../errors.js';
import type { ClientRow } from './client-cache.js';

/**
 * Metadata documents fetched for one client address: plenty for a person trying a few apps, too few
 * for anyone to make this server fetch URLs for them (each fetch is an outbound connection to a host
 * the requester names). Counted in the database, so the budget is the same behind any number of
 * instances.
 */
export const DOCUMENT_FETCHES_PER_IP = { limit: 30, windowMs: 10 * 60_000 };

/** Reserves one fetch for the requester (their address's budget), before the fetch starts. */
export type ReserveFetch = () => Promise<HitOutcome>;

/** Fetches under way in this process, per store and client_id. */
const underWay = oncePer((_db: Store) => new Map<string, Promise<ClientRow>>());

/** What fetchOnceAtATime needs besides the store and the document's address. */
export interface DocumentFetch {
  /** Counts the fetch against the requester's budget (none: not counted). */
  reserve: ReserveFetch | undefined;
  /** A fresh stored copy, if a fetch finished since the caller last looked. */
  storedFresh: () => Promise<ClientRow | undefined>;
  fetch: () => Promise<ClientRow>;
}

/**
 * Runs `fetch` for `clientId` unless this process is already fetching that document, in which case
 * the caller waits for that fetch instead (requests arriving together cost one fetch and one count,
 * not one each). A new fetch is counted first, with `reserve`, and refused when the requester's
 * budget is spent.
 */
export async function fetchOnceAtATime(
  db: Store,
  clientId: string,
  { reserve, storedFresh, fetch }: DocumentFetch,
): Promise<ClientRow> {
  const pending = underWay(db);
  const running = pending.get(clientId);
  if (running) return running;
  const reserved = reserve ? await reserve() : null;
  if (reserved && !reserved.allowed) {
    const minutes = Math.ceil(reserved.retryAfterSeconds / 60);
    throw new OAuthError(
      'temporarily_unavailable',
      `Too many app metadata documents were fetched for your address. Try again in ${minutes <= 1 ? 'a minute' : `${minutes} minutes`}.`,
      429,
      undefined,
      reserved.retryAfterSeconds,
    );
  }
  // While this request was counted, another may have started the same fetch (join it) or finished it
  // and stored the document. Checking the store is part of this request's entry, set before any await,
  // so requests arriving meanwhile join it instead of each looking and fetching.
  const started = pending.get(clientId);
  if (started) {
    await reserved?.giveBack();
    return started;
  }
  const fetching = storedFresh()
    .then(async (stored) => {
      if (!stored) return fetch();
      await reserved?.giveBack();
      return stored;
    })
    .finally(() => pending.delete(clientId));
  pending.set(clientId, fetching);
  return fetching;
}
