import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which store's transaction the running code is inside. A query through the store's root handle from
 * inside its own transaction is a bug on both engines: on SQLite it would wait for the transaction
 * that waits for it (the gate in sqlite.ts), on PostgreSQL it runs on another connection, outside the
 * transaction, and blocks for good on a row the transaction locked. Both become this clear error.
 */
interface Scope {
  readonly owner: object;
  open: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

export class TransactionMisuseError extends Error {
  constructor() {
    super(
      'A query used the root database handle inside a transaction of the same database: use the handle the transaction callback received.',
    );
    this.name = 'TransactionMisuseError';
  }
}

/** A transaction's handle used after the transaction ended (it would write outside any transaction). */
export class TransactionEndedError extends Error {
  constructor() {
    super('This transaction has ended; its handle can no longer be used.');
    this.name = 'TransactionEndedError';
  }
}

/**
 * Runs `fn` marked as inside a transaction of `owner` until it settles; with `track` false, just runs
 * it. The marking is an AsyncLocalStorage, and on Node 20 the first `run()` turns on promise hooks for
 * the whole process: every promise then costs an init and a resolve hook. Measured with
 * bench/compare.ts, that was about a fifth of the server's CPU per tools/list, proxied tool call and
 * refresh grant. So production stores leave it off (main.ts); tests and development keep it on, and
 * every data path runs in the tests on both engines with the check.
 */
export async function withinTransaction<T>(owner: object, fn: () => Promise<T>, track = true): Promise<T> {
  if (!track) return fn();
  const scope: Scope = { owner, open: true };
  try {
    return await scopes.run(scope, fn);
  } finally {
    // Work the callback started and left running keeps this scope: after the end it is no longer inside.
    scope.open = false;
  }
}

export function assertOutsideTransaction(owner: object): void {
  const scope = scopes.getStore();
  if (scope?.open && scope.owner === owner) throw new TransactionMisuseError();
}
