import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/store/index.js';
import type { ClientRow } from '../../src/oauth/clients/client-cache.js';
import { fetchOnceAtATime } from '../../src/oauth/clients/document-fetches.js';

/**
 * The race behind "parallel authorizations naming one new document fetch it once": a request whose
 * reservation (a database round trip) ends after another request's fetch has finished and stored the
 * document must use the stored copy, not fetch again. The reservations are ordered by hand here so the
 * race happens every run; the end-to-end case is in cimd.test.ts.
 */
describe('a metadata document fetch', () => {
  it('is not made again by a request counted while another fetched and stored it', async () => {
    // The store is only the key of the fetches under way in this process.
    const db = {} as Store;
    const clientId = 'https://app.example/raced.json';
    const row = { clientId } as unknown as ClientRow;
    let stored: ClientRow | undefined;
    let fetches = 0;
    const givenBack: string[] = [];
    const reserve = (who: string, after: Promise<unknown>) => async () => {
      await after;
      return { allowed: true as const, giveBack: async () => void givenBack.push(who) };
    };
    const fetch = async () => {
      fetches += 1;
      stored = row;
      return row;
    };
    const storedFresh = async () => stored;

    const first = fetchOnceAtATime(db, clientId, {
      reserve: reserve('first', Promise.resolve()),
      storedFresh,
      fetch,
    });
    const second = fetchOnceAtATime(db, clientId, { reserve: reserve('second', first), storedFresh, fetch });

    expect(await first).toBe(row);
    expect(await second).toBe(row);
    expect(fetches).toBe(1);
    expect(givenBack).toEqual(['second']);
  });

  it('joins a fetch still under way, and fetches when nothing is stored', async () => {
    const db = {} as Store;
    const clientId = 'https://app.example/joined.json';
    const row = { clientId } as unknown as ClientRow;
    let fetches = 0;
    let finish!: () => void;
    const fetch = async () => {
      fetches += 1;
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return row;
    };
    const storedFresh = async () => undefined;
    const first = fetchOnceAtATime(db, clientId, { reserve: undefined, storedFresh, fetch });
    await Promise.resolve();
    const second = fetchOnceAtATime(db, clientId, { reserve: undefined, storedFresh, fetch });
    await new Promise((resolve) => setTimeout(resolve, 5));
    finish();
    expect(await Promise.all([first, second])).toEqual([row, row]);
    expect(fetches).toBe(1);
  });
  it('is not made by requests that arrive while another looks in the store', async () => {
    const db = {} as Store;
    const clientId = 'https://app.example/looked.json';
    const row = { clientId } as unknown as ClientRow;
    let fetches = 0;
    let lookups = 0;
    const storedFresh = async () => {
      lookups += 1;
      // The store answers slowly (a loaded database); nothing is stored yet.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return undefined;
    };
    const fetch = async () => {
      fetches += 1;
      return row;
    };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetchOnceAtATime(db, clientId, { reserve: undefined, storedFresh, fetch }),
      ),
    );
    expect(answers).toEqual(Array(10).fill(row));
    expect({ fetches, lookups }).toEqual({ fetches: 1, lookups: 1 });
  });
});
